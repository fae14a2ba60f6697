// Whether the configured address can be listened on, asked before the slow part of starting (migrations, plugins, the
// model), so that a port another process holds, or a host that is not this machine's, is said in a second, in one line.
import { ConfigError } from "../config";

const codeOf = (e: Error) => (e as { code?: string }).code;

/** The error of listening on hostname:port now, or null when it can be listened on. */
export function listenError(port: number, hostname: string): Error | null {
  try {
    // Port 0 picks a free port: the host is still tried.
    Bun.serve({ port, hostname, reusePort: false, fetch: () => new Response(null, { status: 503 }) }).stop(true);
    return null;
  } catch (e) {
    return e as Error;
  }
}

/**
 * Whether `e` (from listening on hostname:port) means another process holds the port: the one refusal that is not a
 * setting to fix but a moment to wait or move. Bun may say EADDRINUSE for a host it cannot bind at all, so the host is
 * asked again on port 0, which nothing holds.
 */
export function portInUse(port: number, hostname: string, e: Error): boolean {
  return port !== 0 && codeOf(e) === "EADDRINUSE" && listenError(0, hostname) === null;
}

/** The one line for an address that cannot be listened on, naming the setting to change. */
function listenMessage(port: number, hostname: string, e: Error, busy: boolean): string {
  // Bun's own words for a busy port ask "Is port N in use?", which this line answers: they are left out.
  if (busy) return `port ${port} is in use: another program listens on it; set VITRIN_PORT (or --port) to a free port`;
  const code = codeOf(e);
  // Bun's words for a host it cannot bind may ask whether the port is in use, which is not the question then.
  const reason = code === "EADDRINUSE" ? "no address of this machine goes by it" : e.message.replace(/\s+$/, "");
  if (code === "EACCES") return `VITRIN_PORT=${port}: this user may not listen on it (${reason}); set VITRIN_PORT (or --port) to 1024 or above`;
  return `VITRIN_HOST="${hostname}": cannot listen there (${reason}); set VITRIN_HOST (or --host) to an address of this machine, such as 0.0.0.0 (every interface) or 127.0.0.1`;
}

/** Whether `e`, thrown by the server's listen(), is a refusal to bind (and not some other failure of starting). */
export const isListenError = (e: unknown): e is Error => (e as { syscall?: string } | null)?.syscall === "listen" || codeOf(e as Error) === "EADDRINUSE";

/**
 * Says why the address cannot be listened on: a busy port is one line on stderr and exit code 1 (it may be free in a
 * moment); a host or port no setting of this machine allows is thrown as a configuration error (exit 2).
 */
export function refuseListen(port: number, hostname: string, e: Error): number {
  const busy = portInUse(port, hostname, e);
  if (!busy) throw new ConfigError(listenMessage(port, hostname, e, false));
  console.error(listenMessage(port, hostname, e, true));
  return 1;
}
