// The job engine's face: everything slow in vitrin (dekupe, renders, webhooks, payment follow-ups) runs through here.
// Jobs survive crashes and are delivered at least once, so every handler must be idempotent (see engine.ts).
export { JobEngine } from "./engine";
export type {
  EnqueueItem,
  EnqueueOptions,
  EnqueueResult,
  DeferredWrite,
  JobContext,
  JobEngineOptions,
  JobHandler,
  JobStats,
  KindOptions,
  KindStats,
  MaintenanceResult,
  StopResult,
} from "./options";
export { JobAborted, PermanentFailure, RetryAfter } from "./errors";
export type { DeadHook, DeadJob, HandedBackHook } from "./dead";
export { customerError } from "./dead";
export { backoffDelay, defaultBackoff, exponentialBackoff, type Backoff, type BackoffFn, type ExponentialBackoffOptions } from "./backoff";
export { newJobId, newSortableId } from "./ids";
export {
  JOB_STATUSES,
  PostgresJobStore,
  SqliteJobStore,
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
