// What the HTTP layer keeps about a request while it runs (its id, start, idempotency key and status), kept apart so
// the hooks that read it need not import the app's face (src/http/index.ts), which re-exports them.
export type RequestMeta = {
  id: string;
  /** When the request came in, on the clock requestRecorder (src/http/index.ts) times it by. */
  startedAt: number;
  /** Set when this request reserved an Idempotency-Key, so its outcome can be stored. */
  idempotency?: { accountId: string; key: string };
  status?: number;
  /** Set once the request is counted and logged, so an answer that passes two hooks is recorded once. */
  recorded?: boolean;
};
