// Signed outbound webhooks: each event is a message row, delivered at least once with a fixed retry schedule (about
// three days), every attempt logged, signed per Standard Webhooks with the account's secret(s).
//
// The face of the folder. Its rooms: outbox.ts (emit: the message rows are the queue), publish.ts (which receivers an
// event goes to), delivery.ts (one job per account sending its due messages), attempt.ts (one signed POST read into
// an outcome), outcomes.ts (outcomes written in batches), secrets.ts (the account's signing keys and rotation),
// endpoints.ts (an account's webhook endpoints, each with its own secret), history.ts (the delivery log and
// redelivery), sign.ts (Standard Webhooks signatures), retry.ts (the schedule).
//
// The promise to receivers: the same `webhook-id` on every attempt of a message (deduplicate on it), a fresh
// `webhook-timestamp` per attempt (reject old ones), and a `webhook-signature` that verifies with the secret
// from GET /v1/webhooks/secret, or a webhook endpoint's own (during a rotation both the old and the new secret sign
// for 24 h).
import type { Orm, PageQuery } from "../db";
import { drain, registerDelivery, type DeliveryDeps } from "./delivery";
import { getMessage, historyPagers, listMessages, redeliver, type HistoryDeps } from "./history";
import { backlog, emit, ping, resume, type OutboxDeps } from "./outbox";
import { OutcomeWriter } from "./outcomes";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
  type EndpointPatch,
  type NewEndpoint,
} from "./endpoints";
import { publish } from "./publish";
import { currentSecret, rotateSecret } from "./secrets";
import type { Emit, Publish, WebhookDeps } from "./types";

export { newSecret, sign, signatureHeader, verify } from "./sign";
export { MAX_ATTEMPTS, RETRY_SCHEDULE_MS, parseRetryAfter, retryDelay } from "./retry";
export { ROTATION_OVERLAP_MS } from "./secrets";
export { MAX_ENDPOINTS, WEBHOOK_EVENTS, type EndpointPatch, type NewEndpoint } from "./endpoints";
export { WEBHOOK_JOB } from "./outbox";
export { attemptJson, messageJson } from "./json";
export type { AttemptRow, Emit, MessageRow, Publish, WebhookDeps } from "./types";

/** Assembles the webhook modules over one set of dependencies and registers the delivery job with the engine. */
export function createWebhooks(deps: WebhookDeps) {
  const { db, clock, jobs } = deps;
  const outbox: OutboxDeps = { db, clock, jobs, inserts: new WeakMap() };
  const history: HistoryDeps = { db, clock, jobs, ...historyPagers(db) };
  const delivery: DeliveryDeps = {
    db,
    clock,
    jobs,
    logger: deps.logger,
    outbound: deps.outbound,
    random: deps.random ?? Math.random,
    writer: new OutcomeWriter({ db, observeAttempt: deps.observeAttempt }),
  };
  registerDelivery(delivery);
  return {
    /** Queues an event in the caller's transaction. */
    emit: (tx: Orm, input: Emit) => emit(outbox, tx, input),
    /** Queues an event for every receiver it has (the video's URL, or the account's), in the caller's transaction. */
    publish: (tx: Orm, input: Publish) => publish(outbox, tx, input),
    secret: (accountId: string) => currentSecret(outbox, accountId),
    rotate: (accountId: string) => rotateSecret(outbox, accountId),
    list: (accountId: string, query: PageQuery & { video_id?: string }) => listMessages(history, accountId, query),
    get: (accountId: string, id: string) => getMessage(history, accountId, id),
    redeliver: (accountId: string, id: string) => redeliver(history, accountId, id),
    ping: (accountId: string, url: string) => ping(outbox, accountId, url),
    endpoints: {
      create: (accountId: string, input: NewEndpoint) => createEndpoint(outbox, accountId, input),
      list: (accountId: string) => listEndpoints(outbox, accountId),
      get: (accountId: string, id: string) => getEndpoint(outbox, accountId, id),
      update: (accountId: string, id: string, patch: EndpointPatch) => updateEndpoint(outbox, accountId, id, patch),
      delete: (accountId: string, id: string) => deleteEndpoint(outbox, accountId, id),
      rotate: (accountId: string, id: string) => rotateEndpointSecret(outbox, accountId, id),
    },
    resume: () => resume(outbox),
    backlog: () => backlog(outbox),
    /** Runs an account's delivery job in place (as the job engine would), for tests and tools. */
    drain: (accountId: string, signal: AbortSignal, shutdown?: AbortSignal) => drain(delivery, accountId, signal, shutdown),
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
