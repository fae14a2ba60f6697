// Whether a port can be listened on, asked before the slow part of starting (migrations, plugins, the model) so
// that a port another process holds is said in a second, not after the start-up work.

/** The error of listening on hostname:port now, or null when it is free. Other failures are left to the real listen. */
export function portTaken(port: number, hostname: string): Error | null {
  // Port 0 picks a free port; there is nothing to ask.
  if (port === 0) return null;
  try {
    Bun.serve({ port, hostname, reusePort: false, fetch: () => new Response(null, { status: 503 }) }).stop(true);
    return null;
  } catch (e) {
    return (e as { code?: string }).code === "EADDRINUSE" ? (e as Error) : null;
  }
}

/** The one line for a port another process holds. */
export const portInUseMessage = (port: number, e: Error) =>
  `port ${port} is in use: ${e.message.replace(/\s+$/, "")}; set VITRIN_PORT (or --port) to a free port`;
