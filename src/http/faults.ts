// Faults of the machine rather than of the request (a database locked by another process, a full disk), told apart
// from bugs so the client gets an answer it can act on (503 or 507, with Retry-After) instead of a 500.
import type { Logger } from "../kernel";
import { isSqliteBusy } from "../db";
import { errors, type ApiError } from "../kernel";

/** The error's codes, its own and its causes' (drizzle wraps driver errors; our own code wraps some in turn). */
function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (let cur = error, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    for (const field of ["code", "errno"] as const) {
      const value = (cur as Record<string, unknown>)[field];
      if (typeof value === "string") codes.push(value);
    }
  }
  return codes;
}

// SQLite: the database or the WAL could not grow. Node fs: no space, or the disk quota is used up. PostgreSQL: disk_full.
const FULL = new Set(["SQLITE_FULL", "ENOSPC", "EDQUOT", "53100"]);
// PostgreSQL: lock_not_available (55P03), cannot_connect_now (57P03, starting up or shutting down), too_many_connections
// (53300). A server that cannot be reached at all is a fault too.
const BUSY = new Set(["55P03", "57P03", "53300"]);

/** The catalogue's answer for a machine fault, or null when the error is something else (a bug: a 500). */
export function faultError(error: unknown): ApiError | null {
  if (isSqliteBusy(error)) return errors.databaseBusy();
  const codes = codesOf(error);
  if (codes.some((c) => FULL.has(c) || c.startsWith("SQLITE_FULL"))) return errors.insufficientStorage();
  if (codes.some((c) => BUSY.has(c) || c.startsWith("ERR_POSTGRES_CONNECTION"))) return errors.databaseBusy();
  return null;
}

const LOG_EVERY_MS = 10_000;
/** Per logger (one per service), when each kind of fault was last logged and how many went unlogged since. */
const logged = new WeakMap<Logger, Map<number, { at: number; skipped: number }>>();

/**
 * Logs a fault at most once every 10 s per status, with how many were not logged since: a full disk under load fails
 * every request, and a line each would pile onto the very disk that is full.
 */
export function logFault(logger: Logger, err: ApiError, requestId: string, cause: unknown, now = Date.now()): void {
  let byStatus = logged.get(logger);
  if (!byStatus) logged.set(logger, (byStatus = new Map()));
  const seen = byStatus.get(err.status);
  if (seen && now - seen.at < LOG_EVERY_MS) {
    seen.skipped++;
    return;
  }
  byStatus.set(err.status, { at: now, skipped: 0 });
  logger.warn(err.status === 507 ? "disk full: request refused" : "database busy: request refused", {
    request_id: requestId,
    status: err.status,
    not_logged_since: seen?.skipped ?? 0,
    err: cause,
  });
}
