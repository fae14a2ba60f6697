// Vetting one hop of an outbound request before anything is sent: the scheme, the host name, and every address the
// name resolves to (SSRF defence). DNS answers are remembered for a few seconds (vet-cache.ts), but every request
// applies its own rules to every address of the answer.
import { lookup } from "node:dns/promises";
import { canonicalAddress, isIPLiteral } from "./address";
import { OutboundError } from "./errors";
import type { OutboundOptions } from "./options";
import type { Target } from "./target";
import { VetCache, vetAddresses, type ResolvedHost, type VettedAddress } from "./vet-cache";

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

/** The process's DNS answers for outbound requests, used unless a call passes its own `vetCache` (or null). */
export const sharedVetCache = new VetCache();

async function systemResolve(hostname: string): Promise<string[]> {
  const rows = await lookup(hostname, { all: true, verbatim: true });
  return rows.map((r) => r.address);
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

export type VetOptions = Pick<OutboundOptions, "allowPrivateNetworks" | "allowAddresses" | "allowHosts" | "resolve" | "vetCache">;

// allowAddresses in canonical form, worked out once per array the caller passes (callers hand the same one each time).
const allowedSets = new WeakMap<readonly string[], Set<string | null>>();
function allowedSet(list: readonly string[]): Set<string | null> {
  let set = allowedSets.get(list);
  if (!set) allowedSets.set(list, (set = new Set(list.map((a) => canonicalAddress(a)))));
  return set;
}

/** Whether the operator named this host as one that may use private addresses (allowHosts). */
function trustedHost(hostname: string, opts: VetOptions): boolean {
  return opts.allowHosts?.includes(hostname.toLowerCase().replace(/\.$/, "")) ?? false;
}

/** Applies this request's rules to every address of the answer; one address refused refuses the host. */
function admit(hostname: string, host: ResolvedHost, opts: VetOptions): readonly VettedAddress[] {
  const { addresses } = host;
  if (addresses.length === 0) throw new OutboundError("dns", `${hostname} has no addresses.`);
  const allowed = opts.allowAddresses?.length ? allowedSet(opts.allowAddresses) : null;
  for (const a of addresses) {
    if (a.verdict.reason === "invalid") throw new OutboundError("dns", `${hostname} resolved to a non-address: ${a.address}.`);
    if (a.verdict.public || opts.allowPrivateNetworks || allowed?.has(a.canonical) || trustedHost(hostname, opts)) continue;
    // One bad address refuses the host: a name that mixes public and private answers is a rebinding set-up.
    throw new OutboundError("blocked_address", `${hostname} resolves to ${a.address}, a ${a.verdict.reason} address.`);
  }
  return addresses;
}

/** Resolves the hop's host (or takes a fresh cached answer) and vets every address it has, in resolver order. */
export async function vetTarget(target: Target, opts: VetOptions, signal: AbortSignal): Promise<readonly VettedAddress[]> {
  checkScheme(target);
  const hostname = target.bare;
  if (!opts.allowPrivateNetworks && !trustedHost(hostname, opts)) checkHostname(hostname);
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
