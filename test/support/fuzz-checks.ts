// The fuzz suite's properties, checked on each answer and on the database afterwards: no 5xx, the error catalogue's
// shape on every error, nothing of another account in an answer, and credits equal to the sum of the ledger.
import { errors } from "../../src/kernel";
import type { Service } from "../../src/service";
import { BASE } from "../helpers";
import { learn, type FuzzPools, type FuzzRequest } from "./fuzz-requests";

/** Every `error` name the catalogue can answer with, read from its factories rather than copied. */
export const catalogueNames: ReadonlySet<string> = (() => {
  const names = new Set<string>();
  const tries: unknown[][] = [[], ["x", "y"], [[], "m"], [1, 2]];
  for (const make of Object.values(errors) as ((...a: unknown[]) => { error: string })[]) {
    for (const args of tries) {
      try {
        names.add(make(...args).error);
        break;
      } catch {
        // this factory wants other arguments: the next try gives them
      }
    }
  }
  return names;
})();

export function toRequest(r: FuzzRequest): Request {
  return new Request(`${BASE}${r.path}`, { method: r.method, headers: r.headers, body: r.body });
}

/** What another account owns: its ids must never be in a success answer, its private texts in no answer at all. */
export type Foreign = { ids: string[]; texts: string[] };

/**
 * Sends `r` and checks the answer: below 500; a non-2xx answer is JSON `{error, message, details?}` with a catalogue
 * name (details, when present, a list of `{field, message}`); nothing of `foreign` in it. Throws what it found;
 * otherwise what the request created joins `pools`.
 */
export async function sendAndCheck(service: Service, r: FuzzRequest, pools: FuzzPools, foreign: Foreign = { ids: [], texts: [] }): Promise<Response> {
  const res = await service.handle(toRequest(r));
  const text = await res.clone().text();
  const fail = (why: string) => {
    // The state a request meets was made by earlier ones: the last writes that went through are part of the report.
    const earlier = pools.writes.slice(-6).map((w) => `\n    ${w}`).join("");
    throw new Error(`${why}\n  request: ${JSON.stringify(r).slice(0, 2000)}\n  answer: ${res.status} ${text.slice(0, 600)}\n  after these writes:${earlier}`);
  };
  // /readyz answers 503 by contract while a dependency is not ready (on the S3 run, s3rver now and then fails its probe).
  const notReady = res.status === 503 && r.path.startsWith("/readyz") && /"status":"not_ready"/.test(text);
  if (res.status >= 500 && !notReady) fail("server error");
  if (notReady) return res;
  if (res.status >= 300) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      fail("error answer is not JSON");
    }
    const problem = shapeProblem(parsed);
    if (problem) fail(`error answer off the catalogue's shape: ${problem}`);
    if (!(res.headers.get("content-type") ?? "").includes("application/json")) fail("error answer without a JSON content type");
  }
  for (const secret of foreign.texts) if (text.includes(secret)) fail(`another account's data in the answer: ${secret}`);
  if (res.status < 300) for (const id of foreign.ids) if (text.includes(id)) fail(`another account's id in a success answer: ${id}`);
  learn(pools, r, res.status, text);
  if (r.method !== "GET" && res.status < 300) pools.writes.push(`${r.method} ${r.path} ${(r.body ?? "").slice(0, 300)} → ${res.status}`);
  return res;
}

function shapeProblem(body: unknown): string | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return "not an object";
  const b = body as Record<string, unknown>;
  if (typeof b.error !== "string" || !catalogueNames.has(b.error)) return `error ${JSON.stringify(b.error)} is not a catalogue name`;
  if (typeof b.message !== "string" || b.message.length === 0) return "message is not a non-empty string";
  if (b.details !== undefined) {
    if (!Array.isArray(b.details)) return "details is not a list";
    for (const d of b.details as Record<string, unknown>[]) {
      if (d === null || typeof d !== "object" || typeof d.field !== "string" || typeof d.message !== "string") return "a detail is not {field, message}";
    }
  }
  return null;
}

/** Accounts whose credits differ from the sum of their ledger rows, or are negative; empty when the ledger holds. */
export async function ledgerProblems(service: Service): Promise<string[]> {
  const { accounts, transactions } = service.db.schema;
  const rows = await service.db.read.select({ id: accounts.id, credits: accounts.credits }).from(accounts);
  const entries = await service.db.read.select({ accountId: transactions.accountId, amount: transactions.amount }).from(transactions);
  // BigInt: a sum the API let past 2^53 must show as wrong, not round into agreement.
  const sums = new Map<string, bigint>();
  for (const e of entries) sums.set(e.accountId, (sums.get(e.accountId) ?? 0n) + BigInt(String(e.amount)));
  const problems: string[] = [];
  for (const a of rows) {
    const credits = BigInt(String(a.credits));
    const sum = sums.get(a.id) ?? 0n;
    if (credits !== sum) problems.push(`${a.id}: credits ${credits} but its ledger sums to ${sum}`);
    if (credits < 0n) problems.push(`${a.id}: credits ${credits} below zero`);
  }
  return problems;
}
