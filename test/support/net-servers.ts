// Support for the outbound HTTP tests: real local servers (HTTP, TLS, raw TCP) stopped after each test, options with
// no DNS, and helpers that expect a given OutboundError.
import { expect } from "bun:test";
import { OutboundError, type OutboundErrorCode, type OutboundOptions } from "../../src/net";

export type Hit = { path: string; method: string; host: string | null; authorization: string | null; body: string };
export type TestServer = { port: number; hits: Hit[]; url(path?: string): string; stop(): void };

const servers: { stop(): void }[] = [];
/** Stops every server the last test started: each test file runs it after each test. */
export function stopServers(): void {
  for (const s of servers.splice(0)) s.stop();
}

/** A bare TCP server that answers every request with fixed bytes and then keeps the connection open. */
export function rawServer(response: string): { port: number; requests: number } {
  const sockets = new Set<{ end(): void }>();
  const state = { port: 0, requests: 0 };
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (sock) => void sockets.add(sock),
      data: (sock) => {
        state.requests++;
        sock.write(response);
      },
      close: (sock) => void sockets.delete(sock),
    },
  });
  state.port = listener.port;
  servers.push({
    stop() {
      for (const sock of sockets) sock.end();
      listener.stop(true);
    },
  });
  return state;
}

export function serve(
  handler: (req: Request, url: URL) => Response | Promise<Response>,
  opts: { hostname?: string; tls?: { cert: string; key: string } } = {},
): TestServer {
  const hits: Hit[] = [];
  const hostname = opts.hostname ?? "127.0.0.1";
  const server = Bun.serve({
    hostname,
    port: 0,
    tls: opts.tls,
    async fetch(req) {
      const url = new URL(req.url);
      hits.push({
        path: url.pathname,
        method: req.method,
        host: req.headers.get("host"),
        authorization: req.headers.get("authorization"),
        body: await req.text(),
      });
      return handler(req, url);
    },
  });
  const port = server.port!;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const s: TestServer = {
    port,
    hits,
    url: (path = "/") => `http${opts.tls ? "s" : ""}://${host}:${port}${path}`,
    stop: () => void server.stop(true),
  };
  servers.push(s);
  return s;
}

// Tests never let the system resolver run: any name that reaches DNS without an explicit answer is a test bug.
export const noDns = async (name: string): Promise<string[]> => {
  throw new Error(`unexpected DNS lookup of ${name}`);
};

export const base = (extra: Partial<OutboundOptions> = {}): OutboundOptions => ({
  allowPrivateNetworks: true,
  maxBytes: 1_000_000,
  overflow: "error",
  timeoutMs: 5_000,
  resolve: noDns,
  ...extra,
});

export async function failure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OutboundError) return e;
    throw e;
  }
  throw new Error("expected the call to fail");
}

export async function expectCode(p: Promise<unknown>, code: OutboundErrorCode): Promise<OutboundError> {
  const e = await failure(p);
  expect({ code: e.code, message: e.message }).toEqual({ code, message: expect.any(String) });
  return e;
}

export const text = (b: Uint8Array) => new TextDecoder().decode(b);
