// A URL's parts as the outbound code reads them, parsed once per URL a caller hands in.
import { OutboundError } from "./errors";

/**
 * A URL's parts as outboundFetch reads them, taken once: each of URL's getters crosses into native code, and a
 * webhook delivery read a dozen of them. Never changed once made, so one serves every request to the same URL.
 */
export type Target = {
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

export function targetOf(url: URL): Target {
  const hostname = url.hostname;
  const bare = hostname.charCodeAt(0) === 91 /* [ */ && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return { url, href: url.href, protocol: url.protocol, hostname, bare, host: url.host, origin: url.origin, pinned: new Map() };
}

// The URLs callers hand in, parsed: webhook deliveries go to the same few again and again. Cleared when full.
const parsedTargets = new Map<string, Target>();
const MAX_PARSED_TARGETS = 1000;

export function parseTarget(url: string): Target {
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
export function tlsName(target: Target): string {
  return target.bare.replace(/\.$/, "");
}
