// An account and a listed token as the API shows them, and the one reading of a language tag accounts (and videos) accept.
import { iso } from "../kernel";
import type { AccountRow } from "./types";

export function normalizeLanguage(raw: string): string | null {
  try {
    const [canonical] = Intl.getCanonicalLocales(raw);
    return canonical ?? null;
  } catch {
    return null;
  }
}

export function accountJson(row: AccountRow) {
  return {
    id: row.id,
    object: "account",
    name: row.name,
    credits: row.credits,
    is_premium: row.isPremium,
    language: row.language,
    // What the operator stored as the account-level webhook URL (PUT /v1/webhooks/endpoint sets the same field).
    webhook_url: row.webhookUrl,
    created_at: iso(row.createdAt),
  };
}

/** A listed API token as the API and the command line show it: never the token itself, only its hint. */
export function tokenJson(row: { id: string; name: string; hint: string; createdAt: number; lastUsedAt: number | null }) {
  return {
    id: row.id,
    object: "token" as const,
    name: row.name,
    hint: row.hint,
    created_at: iso(row.createdAt),
    last_used_at: row.lastUsedAt === null ? null : iso(row.lastUsedAt),
  };
}
