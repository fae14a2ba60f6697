// Sending an outbound request (outboundFetch): each hop vetted (vet.ts), connected to the vetted address itself,
// redirects followed and re-vetted, the body capped (body.ts), the whole request bounded in time.
//
// How the pinning works, and why this way: every hop's host name is resolved once (vet.ts), and every returned address
// is vetted; the request is then sent with Bun's fetch to the vetted IP itself (`http://203.0.113.7:8080/path`), with
// the original `Host` header and, for https, `tls.serverName` set to the original host name. Verified against Bun
// 1.4.5 (see test/net.test.ts): Bun's fetch sends a caller-set `Host` header unchanged; `tls.serverName` sets the SNI
// and is the name the certificate is verified against (a cert for shop.test passes for serverName shop.test and fails
// with ERR_TLS_CERT_ALTNAME_INVALID otherwise, also right after a passing request to the same IP and port, so the
// keep-alive pool does not carry one name's verification over to another). Since fetch is never given a name, it never resolves one, so a DNS answer that changes
// between our check and the connect (rebinding) cannot redirect the connection. node:http's `request({ lookup })`
// also works in Bun 1.4.5, but fetch gives one code path for streaming, AbortSignal and redirect: "manual".
// `proxy: false` because an HTTP proxy would resolve the name itself and undo the vetting.
//
// The hot path (webhook deliveries to the same few receivers) skips the repeated work, not the checks: DNS answers are
// remembered per resolver and host name for 10 s (vet-cache.ts), IP literals are classified once, and every request
// still applies its own rules to every address of the answer and connects to one of them. Bun's fetch keeps the
// connections to a pinned IP:port alive and reuses them (32 sockets for 5 000 requests, 32 at a time, measured).

import { isIPLiteral } from "./address";
import { readCapped } from "./body";
import { fetchFailure, errorCode, OutboundError } from "./errors";
import { DEFAULT_TIMEOUT_MS, type OutboundOptions, type OutboundResponse } from "./options";
import { parseTarget, targetOf, tlsName, type Target } from "./target";
import { vetTarget } from "./vet";
import type { VettedAddress } from "./vet-cache";

const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// Connection failures after which trying the next vetted address cannot duplicate a request the server already saw.
const RETRYABLE_CONNECT_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ConnectionRefused"]);

function pinnedUrl(target: Target, address: VettedAddress): string {
  let pinned = target.pinned.get(address.urlHost);
  if (pinned !== undefined) return pinned;
  const url = target.url;
  // An IP literal host is its own vetted address: the URL already says where to connect.
  if (address.urlHost === target.hostname && !url.hash) pinned = target.href;
  else {
    const auth = url.username || url.password ? `${url.username}:${url.password}@` : "";
    const port = url.port ? `:${url.port}` : "";
    pinned = `${target.protocol}//${auth}${address.urlHost}${port}${url.pathname}${url.search}`;
  }
  target.pinned.set(address.urlHost, pinned);
  return pinned;
}

type Hop = { method: string; headers: Record<string, string>; body: string | Uint8Array | undefined };

async function sendPinned(
  target: Target,
  addresses: readonly VettedAddress[],
  hop: Hop,
  opts: OutboundOptions,
  signal: AbortSignal,
): Promise<{ res: Response; address: string }> {
  const https = target.protocol === "https:";
  const hostname = target.bare;
  const tls = https
    ? { ...(isIPLiteral(hostname) ? {} : { serverName: tlsName(target) }), ...(opts.ca ? { ca: opts.ca } : {}) }
    : undefined;
  // Our own object (lowerCaseHeaders or nextHop made it): the hop's Host goes in place, no copy per request.
  hop.headers.host = target.host;
  let lastError: unknown;
  for (const address of addresses) {
    try {
      const res = await fetch(pinnedUrl(target, address), {
        method: hop.method,
        headers: hop.headers,
        body: hop.body,
        redirect: "manual",
        signal,
        proxy: false,
        tls,
      });
      return { res, address: address.address };
    } catch (e) {
      if (signal.aborted || !RETRYABLE_CONNECT_CODES.has(errorCode(e))) throw fetchFailure(e);
      lastError = e;
    }
  }
  throw fetchFailure(lastError);
}

function lowerCaseHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower !== "host") out[lower] = headers[name];
  }
  return out;
}

/** The request for the next hop, following what browsers do with method, body and credentials on redirect. */
function nextHop(hop: Hop, status: number, from: Target, to: Target): Hop {
  const headers = { ...hop.headers };
  let { method, body } = hop;
  if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
    method = "GET";
    body = undefined;
    for (const name of ["content-type", "content-length", "content-encoding"]) delete headers[name];
  }
  if (from.origin !== to.origin) {
    for (const name of ["authorization", "cookie", "proxy-authorization"]) delete headers[name];
  }
  return { method, headers, body };
}

// Requests in flight under each caller's signal, which one listener aborts together: a listener added and removed per
// request cost more than the rest of outboundFetch's own work (a webhook delivery job sends thousands under one).
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

/** Aborts `controller` when `external` aborts, until the returned function is called. */
function follow(external: AbortSignal, controller: AbortController): () => void {
  let inFlight = followers.get(external);
  if (!inFlight) {
    const set = new Set<AbortController>();
    followers.set(external, (inFlight = set));
    external.addEventListener("abort", () => {
      for (const c of set) c.abort();
      set.clear();
    }, { once: true });
  }
  inFlight.add(controller);
  return () => void inFlight.delete(controller);
}

/**
 * Fetches an untrusted http(s) URL: refuses non-public targets (unless allowPrivateNetworks), pins each hop's
 * connection to the vetted address, re-vets every redirect hop, caps the body and bounds the whole request in time.
 * Throws OutboundError; never returns a partial body except in "truncate" mode, where `truncated` says so.
 */
export async function outboundFetch(url: string, opts: OutboundOptions): Promise<OutboundResponse> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let target = parseTarget(url);

  const external = opts.signal;
  if (external?.aborted) throw external.reason;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const unfollow = external ? follow(external, controller) : null;
  let hop: Hop = { method: (opts.method ?? "GET").toUpperCase(), headers: lowerCaseHeaders(opts.headers), body: opts.body };
  let redirects = 0;
  let settled = false;
  try {
    for (;;) {
      const addresses = await vetTarget(target, opts, controller.signal);
      const { res, address } = await sendPinned(target, addresses, hop, opts, controller.signal);
      const location = REDIRECT_STATUSES.has(res.status) ? res.headers.get("location") : null;
      if (location !== null && maxRedirects > 0) {
        void res.body?.cancel().catch(() => {});
        if (redirects >= maxRedirects) {
          throw new OutboundError("too_many_redirects", `More than ${maxRedirects} redirects.`);
        }
        let next: Target;
        try {
          next = targetOf(new URL(location, target.url));
        } catch {
          throw new OutboundError("invalid_url", "A redirect's Location cannot be parsed.");
        }
        hop = nextHop(hop, res.status, target, next);
        target = next;
        redirects++;
        continue;
      }
      const { body, truncated } = await readCapped(res, opts.maxBytes, opts.overflow);
      settled = true;
      return { status: res.status, headers: res.headers, body, truncated, url: target.href, address, redirects };
    }
  } catch (e) {
    if (external?.aborted) throw external.reason;
    if (timedOut) throw new OutboundError("timeout", `The request took longer than ${timeoutMs} ms.`, { cause: e });
    if (e instanceof OutboundError) throw e;
    throw fetchFailure(e);
  } finally {
    clearTimeout(timer);
    unfollow?.();
    // Tears down a connection still open after a failure (a body we stopped reading, a hop we gave up on).
    if (!settled) controller.abort();
  }
}
