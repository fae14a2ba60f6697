// The accounts' tables (SQLite): accounts, their bearer tokens, and the Studio's sign-ins (browser sessions and one-time
// login links). Split from schema.ts, which re-exports them, to keep each file readable; drizzle-kit reads both.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull().default(""),
  credits: integer("credits").notNull().default(0),
  isPremium: integer("is_premium", { mode: "boolean" }).notNull().default(false),
  language: text("language").notNull().default("en"),
  webhookUrl: text("webhook_url"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const tokens = sqliteTable(
  "tokens",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    hash: text("hash").notNull(),
    hint: text("hint").notNull(),
    name: text("name").notNull().default(""),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("tokens_hash_idx").on(t.hash), index("tokens_account_idx").on(t.accountId)],
);

// A Studio browser session: the cookie holds a random secret, only its SHA-256 is kept here. `opened_with` says what
// opened it (the token id or login link id of an account session, a hash of VITRIN_ADMIN_TOKEN for an operator's) so
// revoking that token, or changing the admin token, ends the session too.
export const studioSessions = sqliteTable(
  "studio_sessions",
  {
    hash: text("hash").primaryKey(),
    kind: text("kind").notNull(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    openedWith: text("opened_with").notNull(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("studio_sessions_expires_idx").on(t.expiresAt), index("studio_sessions_account_idx").on(t.accountId)],
);

// A one-time login link (POST /v1/admin/accounts/:id/login_links): the code's SHA-256, used once before it expires.
export const loginLinks = sqliteTable(
  "login_links",
  {
    id: text("id").primaryKey(),
    hash: text("hash").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [uniqueIndex("login_links_hash_idx").on(t.hash), index("login_links_expires_idx").on(t.expiresAt)],
);
