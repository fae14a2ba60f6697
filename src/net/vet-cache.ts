// A short-lived memory of DNS answers for outbound requests, so a host that is fetched again and again (a webhook
// receiver) is not resolved, parsed and classified on every request.
//
// What is cached is the resolver's answer and each address's classification, never a verdict: every request still
// applies its own rules (allowPrivateNetworks, allowAddresses) to every address of the answer, so a cached answer can
// never let through what a fresh lookup under the same rules would refuse. Answers expire after `ttlMs` and the name is
// resolved again, so a host that moves to a private address is refused at the first request after the TTL. Requests
// still connect to a vetted address from the answer (pinning), so the cache adds no rebinding window: within the TTL
// the connection goes to the address that was vetted, whatever DNS says meanwhile. Failed, empty or malformed answers
// are not kept. Answers are kept per resolver function, so an injected resolver never sees another's answers.

import { canonicalAddress, classifyAddress, type AddressVerdict } from "./address";

export type VettedAddress = {
  /** As the resolver gave it (zone included, if any). */
  readonly address: string;
  /** The form that goes in a URL's host: no zone, IPv6 in brackets. */
  readonly urlHost: string;
  readonly verdict: AddressVerdict;
  /** For matching allowAddresses; null when the text is not an address (verdict "invalid"). */
  readonly canonical: string | null;
};

export type ResolvedHost = {
  readonly addresses: readonly VettedAddress[];
  /** On the cache's clock; Infinity for IP literals, whose classification never changes. */
  readonly expiresAt: number;
};

export type Resolver = (hostname: string) => Promise<string[]>;

export type VetCacheOptions = {
  /** How long a DNS answer is used before the name is resolved again. Default 10 000 ms. */
  ttlMs?: number;
  /** Answers kept per resolver (and IP literals kept); the oldest is dropped beyond this. Default 1 000. */
  maxEntries?: number;
  /** Milliseconds on a monotonic clock; tests pass their own and move it explicitly. Default performance.now. */
  now?: () => number;
};

export const DEFAULT_DNS_TTL_MS = 10_000;
const DEFAULT_MAX_ENTRIES = 1_000;

/** Parses and classifies each address of an answer once, for every request that uses it. */
export function vetAddresses(addresses: readonly string[]): VettedAddress[] {
  return addresses.map((address) => {
    const ip = address.split("%")[0];
    return {
      address,
      urlHost: ip.includes(":") ? `[${ip}]` : ip,
      verdict: classifyAddress(address),
      canonical: canonicalAddress(address),
    };
  });
}

function evictOldest<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) return;
    map.delete(oldest.value);
  }
}

export class VetCache {
  readonly ttlMs: number;
  readonly maxEntries: number;
  private readonly now: () => number;
  private byResolver = new WeakMap<Resolver, Map<string, ResolvedHost>>();
  private readonly inflight = new WeakMap<Resolver, Map<string, { startedAt: number; work: Promise<ResolvedHost> }>>();
  private readonly literals = new Map<string, ResolvedHost>();

  constructor(opts: VetCacheOptions = {}) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_DNS_TTL_MS;
    this.maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.now = opts.now ?? (() => performance.now());
  }

  /** The classification of `hostname` if it is an IP literal seen before; undefined otherwise (names included). */
  knownLiteral(hostname: string): ResolvedHost | undefined {
    return this.literals.get(hostname);
  }

  /** An IP literal host (as new URL() normalised it), classified once. */
  literal(hostname: string): ResolvedHost {
    let hit = this.literals.get(hostname);
    if (!hit) {
      hit = { addresses: vetAddresses([hostname]), expiresAt: Number.POSITIVE_INFINITY };
      this.literals.set(hostname, hit);
      evictOldest(this.literals, this.maxEntries);
    }
    return hit;
  }

  /**
   * The answer for `hostname` from `resolve`: the cached one while it is fresh, else a new lookup (one at a time per
   * name: requests that miss together share it). Rejects as `resolve` does; such failures are not cached.
   */
  lookup(resolve: Resolver, hostname: string): ResolvedHost | Promise<ResolvedHost> {
    let answers = this.byResolver.get(resolve);
    if (!answers) this.byResolver.set(resolve, (answers = new Map()));
    const hit = answers.get(hostname);
    if (hit && this.now() < hit.expiresAt) return hit;
    let pending = this.inflight.get(resolve);
    if (!pending) this.inflight.set(resolve, (pending = new Map()));
    // A lookup older than the TTL is not joined: a resolver that hangs must not hold the name up for good.
    const running = pending.get(hostname);
    if (running && this.now() - running.startedAt < this.ttlMs) return running.work;
    const table = answers;
    const lookups = pending;
    const flight = { startedAt: this.now(), work: undefined as unknown as Promise<ResolvedHost> };
    flight.work = (async () => {
      try {
        const addresses = await resolve(hostname);
        const entry: ResolvedHost = { addresses: vetAddresses(addresses), expiresAt: this.now() + this.ttlMs };
        if (entry.addresses.length > 0 && entry.addresses.every((a) => a.verdict.reason !== "invalid")) {
          table.delete(hostname);
          table.set(hostname, entry);
          evictOldest(table, this.maxEntries);
        }
        return entry;
      } finally {
        if (lookups.get(hostname) === flight) lookups.delete(hostname);
      }
    })();
    lookups.set(hostname, flight);
    return flight.work;
  }

  /** Forgets every DNS answer (literal classifications stay: they cannot change). */
  clear(): void {
    this.byResolver = new WeakMap();
  }
}
