// What one POST request carries through everything it calls, so the idempotency key it holds can be marked inside
// the very transactions that carry its work out (idempotency-writes.ts): an AsyncLocalStorage around Elysia's fetch.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Elysia } from "elysia";

/** The key a request holds, once its reservation is made; cleared when its answer is stored or the key freed. */
export type HeldKey = { accountId: string; key: string; createdAt: number };
export type RequestScope = { idempotency?: HeldKey };

const scopes = new AsyncLocalStorage<RequestScope>();

/** The scope of the POST being handled, if any (reads and other methods have none: nothing to mark). */
export function currentScope(): RequestScope | undefined {
  return scopes.getStore();
}

/**
 * Runs every POST inside a scope of its own. Elysia's `wrap` puts a function around its whole fetch (hooks and
 * handler alike), the one place a scope entered covers both; a hook cannot, as what it enters ends when it returns.
 * Other methods go straight through, so reads pay one comparison.
 */
export function withRequestScopes<T extends Elysia<any, any, any, any, any, any, any>>(app: T): T {
  return app.wrap((fetch, request) => {
    if ((request as Request).method !== "POST") return fetch;
    return ((...args: unknown[]) => scopes.run({}, () => (fetch as (...a: unknown[]) => unknown)(...args))) as never;
  });
}
