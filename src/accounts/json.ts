// An account as the API shows it, and the one reading of a language tag accounts (and videos) accept.
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
    created_at: iso(row.createdAt),
  };
}
