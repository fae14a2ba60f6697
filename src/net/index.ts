// Safe outbound HTTP for URLs that users hand us (product images now, webhook deliveries later): SSRF-vetted, pinned, capped.
//
// How the pinning works, and why this way: every hop's host name is resolved once, here, and every returned address
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

import { lookup } from "node:dns/promises";
import { canonicalAddress, isIPLiteral } from "./address";
import { OutboundError, type Overflow } from "./errors";
import { VetCache, vetAddresses, type ResolvedHost, type VettedAddress } from "./vet-cache";
import { errors } from "../kernel";

export { classifyAddress, type AddressVerdict } from "./address";
export { decodeDataUrl, type DataUrlContent } from "./data-url";
export { OutboundError, isOutboundError, type OutboundErrorCode, type Overflow } from "./errors";
export { DEFAULT_DNS_TTL_MS, VetCache, type VetCacheOptions } from "./vet-cache";

export type OutboundOptions = {
  /** false in production: refuse hosts that are, or resolve to, non-public addresses. Scheme rules apply either way. */
  allowPrivateNetworks: boolean;
  /** Non-public addresses an operator trusts anyway (e.g. an internal webhook receiver); exact IPs, any port. */
  allowAddresses?: readonly string[];
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The whole request: DNS, connect, headers, every redirect hop and the body read. Default 10 000. */
  timeoutMs?: number;
  /** Default 3; 0 never follows, and a 3xx is then returned as the response. */
  maxRedirects?: number;
  /** Body cap in bytes (after content decoding). */
  maxBytes: number;
  /** "error": throw `too_large` once more than maxBytes arrive; "truncate": return the first maxBytes. */
  overflow: Overflow;
  /** DNS for tests; default is the system resolver (getaddrinfo, all addresses). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Extra trusted CA certificates (PEM) for https, for private PKI and tests. */
  ca?: string | string[];
  /** The caller's cancellation (e.g. a job's); when it aborts, the call rejects with `signal.reason` as fetch does. */
  signal?: AbortSignal;
  /**
   * Where DNS answers are remembered for a few seconds (see vet-cache.ts); every request still vets every address
   * of the answer under its own rules and connects to one of them. Default: one cache shared by the process
   * (10 s TTL); null resolves every hop afresh.
   */
  vetCache?: VetCache | null;
};

export type OutboundResponse = {
  status: number;
  headers: Headers;
  body: Uint8Array;
  truncated: boolean;
  /** The URL of the final hop, with its original host name. */
  url: string;
  /** The IP address the final hop actually connected to. */
  address: string;
  redirects: number;
};

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

// Names that mean this machine, the local network or a cloud metadata service; refused by name as well, so the
// refusal does not hang on what /etc/hosts or a cloud resolver happens to answer for them.
const BLOCKED_HOSTNAMES = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);
const BLOCKED_SUFFIXES = [".localhost", ".internal", ".local", ".home.arpa"];

// Connection failures after which trying the next vetted address cannot duplicate a request the server already saw.
const RETRYABLE_CONNECT_CODES = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL", "ConnectionRefused"]);

/** The process's DNS answers for outbound requests, used unless a call passes its own `vetCache` (or null). */
export const sharedVetCache = new VetCache();

async function systemResolve(hostname: string): Promise<string[]> {
  const rows = await lookup(hostname, { all: true, verbatim: true });
  return rows.map((r) => r.address);
}

/**
 * A URL's parts as outboundFetch reads them, taken once: each of URL's getters crosses into native code, and a
 * webhook delivery read a dozen of them. Never changed once made, so one serves every request to the same URL.
 */
type Target = {
  readonly url: URL;
  readonly href: string;
  readonly protocol: string;
  readonly hostname: string;
  /** The host name without an IPv6 literal's brackets. */
  readonly bare: string;
  readonly host: string;
  readonly origin: string;
  /** Where to connect for each vetted address (see pinnedUrl), worked out once per address. */
  readonly pinned: Map<string, string>;
};

function targetOf(url: URL): Target {
  const hostname = url.hostname;
  const bare = hostname.charCodeAt(0) === 91 /* [ */ && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return { url, href: url.href, protocol: url.protocol, hostname, bare, host: url.host, origin: url.origin, pinned: new Map() };
}

// The URLs callers hand in, parsed: webhook deliveries go to the same few again and again. Cleared when full.
const parsedTargets = new Map<string, Target>();
const MAX_PARSED_TARGETS = 1000;

function parseTarget(url: string): Target {
  let target = parsedTargets.get(url);
  if (target) return target;
  try {
    target = targetOf(new URL(url));
  } catch {
    throw new OutboundError("invalid_url", "The URL cannot be parsed.");
  }
  if (parsedTargets.size >= MAX_PARSED_TARGETS) parsedTargets.clear();
  parsedTargets.set(url, target);
  return target;
}

/** Host name as SNI and certificate checks want it: no brackets, no trailing root dot. */
function tlsName(target: Target): string {
  return target.bare.replace(/\.$/, "");
}

function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function checkScheme(target: Target): void {
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new OutboundError("scheme", `Only http and https URLs can be fetched, not ${target.protocol.replace(/:$/, "")}.`);
  }
}

function checkHostname(hostname: string): void {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (BLOCKED_HOSTNAMES.has(name) || BLOCKED_SUFFIXES.some((s) => name.endsWith(s))) {
    throw new OutboundError("blocked_address", `${hostname} names a local or internal service.`);
  }
}

type VetOptions = Pick<OutboundOptions, "allowPrivateNetworks" | "allowAddresses" | "resolve" | "vetCache">;

// allowAddresses in canonical form, worked out once per array the caller passes (callers hand the same one each time).
const allowedSets = new WeakMap<readonly string[], Set<string | null>>();
function allowedSet(list: readonly string[]): Set<string | null> {
  let set = allowedSets.get(list);
  if (!set) allowedSets.set(list, (set = new Set(list.map((a) => canonicalAddress(a)))));
  return set;
}

/** Applies this request's rules to every address of the answer; one address refused refuses the host. */
function admit(hostname: string, host: ResolvedHost, opts: VetOptions): readonly VettedAddress[] {
  const { addresses } = host;
  if (addresses.length === 0) throw new OutboundError("dns", `${hostname} has no addresses.`);
  const allowed = opts.allowAddresses?.length ? allowedSet(opts.allowAddresses) : null;
  for (const a of addresses) {
    if (a.verdict.reason === "invalid") throw new OutboundError("dns", `${hostname} resolved to a non-address: ${a.address}.`);
    if (a.verdict.public || opts.allowPrivateNetworks || allowed?.has(a.canonical)) continue;
    // One bad address refuses the host: a name that mixes public and private answers is a rebinding set-up.
    throw new OutboundError("blocked_address", `${hostname} resolves to ${a.address}, a ${a.verdict.reason} address.`);
  }
  return addresses;
}

/** Resolves the hop's host (or takes a fresh cached answer) and vets every address it has, in resolver order. */
async function vetTarget(target: Target, opts: VetOptions, signal: AbortSignal): Promise<readonly VettedAddress[]> {
  checkScheme(target);
  const hostname = target.bare;
  if (!opts.allowPrivateNetworks) checkHostname(hostname);
  const cache = opts.vetCache === undefined ? sharedVetCache : opts.vetCache;

  // new URL() has already rewritten decimal, octal, hex and short IPv4 spellings (2130706433, 0177.0.0.1, 0x7f.1,
  // 127.1) as dotted quads, and IPv6 to its compressed form, so every literal lands here rather than in DNS.
  const known = cache?.knownLiteral(hostname);
  if (known) return admit(hostname, known, opts);
  if (isIPLiteral(hostname)) {
    return admit(hostname, cache ? cache.literal(hostname) : { addresses: vetAddresses([hostname]), expiresAt: 0 }, opts);
  }
  const resolve = opts.resolve ?? systemResolve;
  let host: ResolvedHost;
  try {
    const answer = cache ? cache.lookup(resolve, hostname) : resolve(hostname).then((a) => ({ addresses: vetAddresses(a), expiresAt: 0 }));
    host = "then" in answer ? await raceAbort(answer, signal) : answer;
  } catch (e) {
    if (signal.aborted) throw e;
    throw new OutboundError("dns", `${hostname} could not be resolved.`, { cause: e });
  }
  return admit(hostname, host, opts);
}

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

function errorCode(e: unknown): string {
  return typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "";
}

function fetchFailure(e: unknown): OutboundError {
  const code = errorCode(e);
  const detail = e instanceof Error ? e.message : String(e);
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY|HANDSHAKE/i.test(code)) {
    return new OutboundError("tls", `TLS failed: ${code}.`, { cause: e });
  }
  return new OutboundError("connect", `Connection failed: ${code || detail}.`, { cause: e });
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

function tooLarge(maxBytes: number, known?: number): OutboundError {
  const size = known === undefined ? "more than" : `${known} bytes, more than`;
  return new OutboundError("too_large", `The response body is ${size} the ${maxBytes} bytes allowed.`);
}

async function readCapped(res: Response, maxBytes: number, overflow: Overflow): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!res.body) return { body: new Uint8Array(0), truncated: false };
  const encoding = (res.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  // Content-Length counts encoded bytes, so it only predicts the decoded size when there is no content coding.
  if (overflow === "error" && encoding === "identity" && declared > maxBytes) {
    void res.body.cancel().catch(() => {});
    throw tooLarge(maxBytes, declared);
  }
  // A declared length within the cap and no content coding: HTTP framing ends the body there, so it can be read
  // whole without the chunk-by-chunk stream (the common case: a webhook receiver's short answer).
  if (encoding === "identity" && declared >= 0 && declared <= maxBytes) {
    try {
      return { body: await res.bytes(), truncated: false };
    } catch (e) {
      throw new OutboundError("connect", "The connection broke while reading the response body.", { cause: e });
    }
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      if (total + value.byteLength > maxBytes) {
        if (overflow === "error") throw tooLarge(maxBytes);
        chunks.push(value.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } catch (e) {
    if (e instanceof OutboundError) throw e;
    throw new OutboundError("connect", "The connection broke while reading the response body.", { cause: e });
  } finally {
    if (!finished) void reader.cancel().catch(() => {});
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { body, truncated };
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

/** A short reason for a refused or failed fetch, fit to show the API client after a field name. */
export function describeOutboundError(e: OutboundError, timeoutMs = DEFAULT_TIMEOUT_MS): string {
  switch (e.code) {
    case "invalid_url":
      return "is not a valid URL";
    case "scheme":
      return "must be an http or https URL";
    case "blocked_address":
      return "points to a private, local or reserved network address, which is not allowed";
    case "dns":
      return "has a host name that could not be resolved";
    case "timeout":
      return `could not be fetched within ${Math.round(timeoutMs / 100) / 10} s`;
    case "too_many_redirects":
      return "redirected too many times";
    case "tls":
      return "could not be fetched: the server's TLS certificate was not accepted";
    case "connect":
      return "could not be fetched: the connection to the server failed";
    case "too_large":
      return "is too large";
  }
}

export type UrlCheckOptions = Pick<OutboundOptions, "allowPrivateNetworks" | "allowAddresses" | "resolve" | "timeoutMs"> & {
  /** The request field named in the 422 (default "url"). */
  field?: string;
};

/**
 * Applies the outbound rules (scheme, host name, every resolved address) to a URL a client registers, without
 * fetching it, so a webhook endpoint that could never be delivered to is refused up front with a 422.
 * Each delivery vets again: DNS may change after this check.
 */
export async function checkOutboundUrl(url: string, opts: UrlCheckOptions): Promise<void> {
  const field = opts.field ?? "url";
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await vetTarget(parseTarget(url), opts, controller.signal);
  } catch (e) {
    // Only DNS can be slow here, so running out of time reads as a name that did not resolve.
    const failure = controller.signal.aborted
      ? new OutboundError("dns", `Resolving the host took longer than ${timeoutMs} ms.`)
      : e instanceof OutboundError
        ? e
        : fetchFailure(e);
    throw errors.invalidField(field, describeOutboundError(failure, timeoutMs));
  } finally {
    clearTimeout(timer);
  }
}
