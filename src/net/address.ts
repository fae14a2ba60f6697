// IP address vetting for outbound requests: decides whether an address is on the public internet (SSRF defence).

import { isIPv4, isIPv6 } from "node:net";

export type AddressVerdict = { public: boolean; reason?: string };

type V4Range = { base: number; bits: number; reason: string };

function v4(text: string): number {
  const p = text.split(".").map(Number);
  return ((p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]) >>> 0;
}

function range(cidr: string, reason: string): V4Range {
  const [base, bits] = cidr.split("/");
  return { base: v4(base), bits: Number(bits), reason };
}

// Order matters: the first match wins, so narrow entries (metadata, broadcast) sit before the blocks that contain them.
const V4_BLOCKED: V4Range[] = [
  range("169.254.169.254/32", "metadata"), // AWS, GCP, Azure, OpenStack instance metadata
  range("169.254.170.2/32", "metadata"), // AWS ECS task metadata
  range("100.100.100.200/32", "metadata"), // Alibaba Cloud metadata
  range("255.255.255.255/32", "broadcast"),
  range("0.0.0.0/8", "unspecified"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "cgnat"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "reserved"),
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "reserved"), // deprecated 6to4 relay anycast
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved"),
];

function inRange(addr: number, r: V4Range): boolean {
  if (r.bits === 0) return true;
  const mask = (0xffffffff << (32 - r.bits)) >>> 0;
  return ((addr & mask) >>> 0) === ((r.base & mask) >>> 0);
}

function classifyV4(addr: number): AddressVerdict {
  for (const r of V4_BLOCKED) if (inRange(addr, r)) return { public: false, reason: r.reason };
  return { public: true };
}

/** Parses an IPv6 text form (with `::` and an optional trailing dotted IPv4) into eight 16-bit groups. */
export function parseIPv6(text: string): number[] | null {
  let s = text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(":");
  const last = s.slice(lastColon + 1);
  if (last.includes(".")) {
    const n = v4(last);
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function embeddedV4(hi: number, lo: number): number {
  return ((hi << 16) | lo) >>> 0;
}

function classifyV6(g: number[]): AddressVerdict {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);

  if (zeroUpTo(8)) return { public: false, reason: "unspecified" };
  if (zeroUpTo(7) && g7 === 1) return { public: false, reason: "loopback" };
  // These forms carry an IPv4 address that the socket layer or a translator actually reaches, so the IPv4 verdict
  // decides; a public embedded address is refused as well where the form has no legitimate use on the internet.
  if (zeroUpTo(5) && g5 === 0xffff) return classifyV4(embeddedV4(g6, g7)); // IPv4-mapped ::ffff:a.b.c.d
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) {
    const inner = classifyV4(embeddedV4(g6, g7)); // IPv4-translated (SIIT) ::ffff:0:a.b.c.d
    return inner.public ? { public: false, reason: "ipv4-translated" } : inner;
  }
  if (zeroUpTo(6)) {
    const inner = classifyV4(embeddedV4(g6, g7)); // deprecated IPv4-compatible ::a.b.c.d
    return inner.public ? { public: false, reason: "ipv4-compatible" } : inner;
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyV4(embeddedV4(g6, g7)); // well-known NAT64 prefix: the translator connects to the IPv4 address
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return { public: false, reason: "private" }; // local-use NAT64
  if (g0 === 0x2002) return classifyV4(embeddedV4(g1, g2)); // 6to4: the relay reaches the embedded IPv4 address
  if (g0 === 0x2001 && g1 === 0) return { public: false, reason: "teredo" };
  if (g0 === 0x2001 && g1 === 0xdb8) return { public: false, reason: "documentation" };
  if (g0 === 0x2001 && g1 === 2 && g2 === 0) return { public: false, reason: "benchmarking" };
  if (g0 === 0x2001 && g1 < 0x200) return { public: false, reason: "reserved" }; // IETF protocol assignments, ORCHID
  if (g0 === 0x3fff && g1 < 0x1000) return { public: false, reason: "documentation" }; // 3fff::/20
  if (g0 === 0x5f00) return { public: false, reason: "reserved" }; // SRv6 SIDs
  if (g0 === 0xfd00 && g1 === 0xec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) {
    return { public: false, reason: "metadata" }; // AWS IMDS over IPv6
  }
  if ((g0 & 0xfe00) === 0xfc00) return { public: false, reason: "private" }; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return { public: false, reason: "link-local" };
  if ((g0 & 0xffc0) === 0xfec0) return { public: false, reason: "private" }; // deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return { public: false, reason: "multicast" };
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return { public: false, reason: "reserved" }; // discard-only
  // Only 2000::/3 is allocated as global unicast; everything else is unassigned or special.
  if ((g0 & 0xe000) !== 0x2000) return { public: false, reason: "reserved" };
  return { public: true };
}

/**
 * Says whether an IP address (text form as a resolver returns it) is on the public internet, and if not, why.
 * Anything that is not a plain IP address is not public, so callers fail closed.
 */
export function classifyAddress(ip: string): AddressVerdict {
  const text = ip.trim().replace(/^\[(.*)\]$/, "$1");
  if (isIPv4(text)) return classifyV4(v4(text));
  const groups = parseIPv6(text);
  if (groups) return classifyV6(groups);
  return { public: false, reason: "invalid" };
}

/** A canonical text form for comparing addresses: dotted quad, or eight lowercase hex groups for IPv6. */
export function canonicalAddress(ip: string): string | null {
  const text = ip.trim().replace(/^\[(.*)\]$/, "$1");
  if (isIPv4(text)) return text;
  const groups = parseIPv6(text);
  return groups ? groups.map((x) => x.toString(16)).join(":") : null;
}

export function isIPLiteral(host: string): boolean {
  const text = host.replace(/^\[(.*)\]$/, "$1");
  return isIPv4(text) || parseIPv6(text) !== null;
}
