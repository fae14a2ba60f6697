// The job engine's face: everything slow in vitrin (dekupe, renders, webhooks, payment follow-ups) runs through here.
// Jobs survive crashes and are delivered at least once, so every handler must be idempotent (see engine.ts).
export {
  JobEngine,
  type EnqueueItem,
  type EnqueueOptions,
  type EnqueueResult,
  type DeferredWrite,
  type JobContext,
  type JobEngineOptions,
  type JobHandler,
  type JobStats,
  type KindOptions,
  type KindStats,
  type MaintenanceResult,
  type StopResult,
} from "./engine";
export { JobAborted, PermanentFailure, RetryAfter } from "./errors";
export type { DeadHook, DeadJob } from "./dead";
export { backoffDelay, defaultBackoff, exponentialBackoff, type Backoff, type BackoffFn, type ExponentialBackoffOptions } from "./backoff";
export { SqliteJobStore } from "./sqlite";
export { PostgresJobStore } from "./postgres";
export { newJobId } from "./ids";
export {
  JOB_STATUSES,
  TransactionLost,
  type ClaimRequest,
  type Executor,
  type JobFilter,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type LeaseRenewal,
  type NewJob,
  type RescuedJob,
  type Settlement,
  type StatsRows,
} from "./store";
