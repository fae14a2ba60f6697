// The Idempotency-Key hooks every guarded POST shares (account routes and the operator's admin routes): reserve the
// key before the handler runs (or replay the stored answer), store the answer after it, free the key on our failures.
import type { Logger } from "../kernel";
import { errors } from "../kernel";
import { requestHash, validKey, type Idempotency } from "./idempotency";
import { isJsonAnswer, jsonText } from "./json-text";
import type { RequestMeta, RequestMetas } from "./request-meta";
import { currentScope } from "./request-scope";

export type IdempotencyDeps = { idempotency: Idempotency; meta: RequestMetas };

/** Whose keys these are: an account id, or this for the operator (account ids all start with `acct_`). */
export const ADMIN_IDEMPOTENCY_SCOPE = "admin";

type Reserving = { request: Request; body: unknown; path: string };
type Answered = { request: Request; responseValue: unknown; set: { status?: number | string } };

/**
 * onBeforeHandle: for a POST with an Idempotency-Key, replays the stored answer, or reserves the key for this request
 * (a 409 while another request holds it). Runs after validation, so a request the schema rejects never takes a key.
 * Both hooks answer any other request at once rather than through an async function: a promise made and awaited twice
 * on every read cost ~0.3 µs a request (measured).
 */
export function reserveIdempotencyKey(deps: IdempotencyDeps, scope: string, ctx: Reserving): Promise<Response | undefined> | undefined {
  return ctx.request.method === "POST" ? reserveKey(deps, scope, ctx) : undefined;
}

async function reserveKey(deps: IdempotencyDeps, scope: string, ctx: Reserving): Promise<Response | undefined> {
  const { request } = ctx;
  const key = request.headers.get("idempotency-key");
  if (key === null) return;
  if (!validKey(key)) throw errors.badRequest("Idempotency-Key must be 1 to 255 visible ASCII characters.");
  const started = await deps.idempotency.start(scope, key, await requestHash(request.method, ctx.path, ctx.body));
  if (started.replay) {
    return new Response(started.body, {
      status: started.status,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "idempotent-replayed": "true",
        "x-request-id": deps.meta.get(request)?.id ?? "",
      },
    });
  }
  const m = deps.meta.get(request);
  if (m) m.idempotency = { accountId: scope, key };
  // The request's own write transactions now mark the key as they commit (idempotency-writes.ts).
  const requestScope = currentScope();
  if (requestScope) requestScope.idempotency = { accountId: scope, key, createdAt: started.createdAt };
}

/** onAfterHandle: stores the handler's answer for the key this request reserved. */
export function storeIdempotentAnswer(deps: IdempotencyDeps, ctx: Answered): Promise<void> | undefined {
  const m = deps.meta.get(ctx.request);
  return m?.idempotency ? storeAnswer(deps, m, m.idempotency, ctx) : undefined;
}

async function storeAnswer(deps: IdempotencyDeps, m: RequestMeta, reserved: { accountId: string; key: string }, ctx: Answered): Promise<void> {
  const status = typeof ctx.set.status === "number" ? ctx.set.status : 200;
  // Written through jsonText, so the answer's text is written once for the store and for the client.
  const value = ctx.responseValue;
  const body = isJsonAnswer(value) ? jsonText(value) : JSON.stringify(value ?? null);
  releaseScope();
  await deps.idempotency.finish(reserved.accountId, reserved.key, status, body);
  m.idempotency = undefined;
}

/** Work done from here on (the answer's own write, deliveries it set off) is not the request's to mark. */
function releaseScope(): void {
  const requestScope = currentScope();
  if (requestScope) requestScope.idempotency = undefined;
}

/**
 * The onError path: answers about the request itself are stored; our own failures (5xx) and errors whose cause may
 * pass (a remote image host that did not answer: `transient`) free the key so the client can retry with it. When
 * the database cannot take even that (busy, disk full), the key is left to its lease, which runs out
 * in seconds, and the request's own error is still the answer.
 */
export async function recordIdempotentError(
  idempotency: Idempotency,
  logger: Logger,
  m: RequestMeta,
  status: number,
  body: string,
  transient = false,
): Promise<void> {
  const { accountId, key } = m.idempotency!;
  m.idempotency = undefined;
  releaseScope();
  try {
    if (status >= 500 || transient) await idempotency.abandon(accountId, key);
    else await idempotency.finish(accountId, key, status, body);
  } catch (err) {
    logger.warn("could not record the outcome of an idempotent request; its key frees itself when its lease ends", {
      request_id: m.id,
      err,
    });
  }
}
