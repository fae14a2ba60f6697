// Prefixed random ids (acct_, tok_, prod_, …) and the one timestamp format the API speaks.
import { customAlphabet } from "nanoid";

const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const random = customAlphabet(alphabet, 20);

export type IdPrefix = "acct" | "tok" | "prod" | "vid" | "txn" | "top" | "msg" | "job" | "att" | "req" | "file" | "we" | "llk";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${random()}`;
}

/** ISO 8601 UTC with `Z` and milliseconds, or null. */
export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
