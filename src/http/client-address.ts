// Who is calling: the client address a request came from, for throttling failed authentication. The socket's peer is
// the answer unless that peer is a proxy the operator named in VITRIN_TRUSTED_PROXIES; only then is X-Forwarded-For
// read, right to left, skipping the trusted hops (a client can write anything at its left end).
import { BlockList, isIP } from "node:net";
import { parseIPv6 } from "../net";

/** A server that can say which address a request came from (Bun's does; in-process `app.handle` has none). */
export type PeerSource = { requestIP(request: Request): { address: string } | null } | null | undefined;

/** `VITRIN_TRUSTED_PROXIES` entries (addresses or CIDR blocks, checked by the config) as a list to match against. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(bits), family);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** Whether the socket's peer is one of the operator's trusted proxies (false for in-process handling). */
export function isTrustedPeer(request: Request, server: PeerSource, trusted: BlockList): boolean {
  const peer = server?.requestIP(request)?.address ?? null;
  return peer !== null && isTrusted(trusted, peer);
}

/**
 * The client address of a request, or null when it did not come over a socket (in-process handling). With trusted
 * proxies, X-Forwarded-For is walked from its right end: each hop a trusted proxy appended is believed, and the first
 * address not itself a trusted proxy is the client. A malformed entry stops the walk at the last believed hop.
 */
export function clientAddress(request: Request, server: PeerSource, trusted: BlockList | null): string | null {
  const peer = server?.requestIP(request)?.address ?? null;
  if (peer === null || trusted === null || !isTrusted(trusted, peer)) return peer;
  const forwarded = request.headers.get("x-forwarded-for");
  if (!forwarded) return peer;
  const hops = forwarded.split(",").map((h) => h.trim());
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    if (isIP(hops[i]) === 0) break;
    client = hops[i];
    if (!isTrusted(trusted, client)) break;
  }
  return client;
}

/**
 * The bucket an address is counted in: an IPv4 address itself (also when written IPv4-mapped, `::ffff:a.b.c.d`), and
 * for IPv6 its /64, since one host commonly holds a whole /64 and could otherwise try from endless addresses.
 */
export function throttleKey(address: string): string {
  if (isIP(address) === 4) return address;
  const groups = parseIPv6(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}`;
  }
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(":")}::/64`;
}
