// The accounts' tables (PostgreSQL twin of schema-accounts.ts): accounts, their bearer tokens, and the Studio's sign-ins
// (browser sessions and one-time login links). schema-pg.ts re-exports them; change both dialects together.
import { bigint, boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";

const ms = (name: string) => bigint(name, { mode: "number" });

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull().default(""),
  credits: ms("credits").notNull().default(0),
  isPremium: boolean("is_premium").notNull().default(false),
  language: text("language").notNull().default("en"),
  webhookUrl: text("webhook_url"),
  createdAt: ms("created_at").notNull(),
  updatedAt: ms("updated_at").notNull(),
});

export const tokens = pgTable(
  "tokens",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    hash: text("hash").notNull(),
    hint: text("hint").notNull(),
    name: text("name").notNull().default(""),
    createdAt: ms("created_at").notNull(),
    lastUsedAt: ms("last_used_at"),
    revokedAt: ms("revoked_at"),
  },
  (t) => [uniqueIndex("tokens_hash_idx").on(t.hash), index("tokens_account_idx").on(t.accountId)],
);

// A Studio browser session (see schema-accounts.ts): only the cookie secret's SHA-256 is kept.
export const studioSessions = pgTable(
  "studio_sessions",
  {
    hash: text("hash").primaryKey(),
    kind: text("kind").notNull(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    openedWith: text("opened_with").notNull(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: ms("created_at").notNull(),
    lastSeenAt: ms("last_seen_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
  },
  (t) => [index("studio_sessions_expires_idx").on(t.expiresAt), index("studio_sessions_account_idx").on(t.accountId)],
);

// A one-time login link: the code's SHA-256, used once before it expires.
export const loginLinks = pgTable(
  "login_links",
  {
    id: text("id").primaryKey(),
    hash: text("hash").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: ms("created_at").notNull(),
    expiresAt: ms("expires_at").notNull(),
    usedAt: ms("used_at"),
  },
  (t) => [uniqueIndex("login_links_hash_idx").on(t.hash), index("login_links_expires_idx").on(t.expiresAt)],
);
