// Dekupe (background removal) for products: the job that makes the cut-out (dekupe-job.ts), preview, retry and
// revert (dekupe-actions.ts), and the kept attempts and accept (dekupe-attempts.ts), over one dependencies object.
import type { Orm } from "../db";
import { acceptAttempt, listAttempts } from "./dekupe-attempts";
import { previewDekupe, retryDekupe, revertDekupe } from "./dekupe-actions";
import { dekupeDead, runDekupe } from "./dekupe-job";
import type { DekupeHint } from "./dekupe-hint";
import type { DekupeCrop } from "./dekupe-result";
import type { DekupeDeps, DekupeJobPayload } from "./types";

export type { DekupeDeps, DekupeJobPayload } from "./types";

export function createDekupe(deps: DekupeDeps) {
  return {
    /** The job handler: idempotent, since a job may run again after a crash. */
    run: (payload: DekupeJobPayload, signal: AbortSignal) => runDekupe(deps, payload, signal),
    /**
     * The dekupe job went dead (every attempt failed, or each died with its instance): the cut-out is marked failed in
     * the same transaction, so the product stops saying "processing" and a video waiting on it goes ahead with the photo.
     */
    onDead: (tx: Orm, payload: DekupeJobPayload, error: string) => dekupeDead(deps, tx, payload, error),
    preview: (accountId: string, id: string) => previewDekupe(deps, accountId, id),
    retry: (accountId: string, id: string, body?: { crop?: DekupeCrop; hint?: DekupeHint }) => retryDekupe(deps, accountId, id, body?.crop, body?.hint),
    revert: (accountId: string, id: string) => revertDekupe(deps, accountId, id),
    attempts: (accountId: string, id: string) => listAttempts(deps, accountId, id),
    accept: (accountId: string, id: string, attemptId: string) => acceptAttempt(deps, accountId, id, attemptId),
  };
}

export type Dekupe = ReturnType<typeof createDekupe>;
