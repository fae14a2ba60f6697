// Whether the configured address can be listened on, asked before the slow part of starting (migrations, plugins, the
// model), so that a port another process holds, or a host that is not this machine's, is said in a second, in one line.
import { ConfigError } from "../config";

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
 * A port another process holds: the one thing that is not a setting to fix but a moment to wait or move. Port 0 is
 * never held (Bun says EADDRINUSE for it when the host is what fails).
 */
export const portInUse = (port: number, e: Error) => port !== 0 && (e as { code?: string }).code === "EADDRINUSE";

/** The one line for an address that cannot be listened on, naming the setting to change. */
export function listenMessage(port: number, hostname: string, e: Error): string {
  const code = (e as { code?: string }).code;
  // Bun's words for a bad host on port 0 ask whether port 0 is in use, which it never is.
  const reason = code === "EADDRINUSE" && port === 0 ? "no address of this machine goes by it" : e.message.replace(/\s+$/, "");
  if (portInUse(port, e)) return `port ${port} is in use: ${reason}; set VITRIN_PORT (or --port) to a free port`;
  if (code === "EACCES") return `VITRIN_PORT=${port}: this user may not listen on it (${reason}); set VITRIN_PORT (or --port) to 1024 or above`;
  return `VITRIN_HOST="${hostname}": cannot listen there (${reason}); set VITRIN_HOST (or --host) to an address of this machine, such as 0.0.0.0 (every interface) or 127.0.0.1`;
}

/**
 * Says why the address cannot be listened on: a busy port is one line on stderr and exit code 1 (it may be free in a
 * moment); a host or port no setting of this machine allows is thrown as a configuration error (exit 2).
 */
export function refuseListen(port: number, hostname: string, e: Error): number {
  if (!portInUse(port, e)) throw new ConfigError(listenMessage(port, hostname, e));
  console.error(listenMessage(port, hostname, e));
  return 1;
}
