// What a caller of outboundFetch passes and gets back, and the defaults the send and the URL check share.
import type { Overflow } from "./errors";
import type { VetCache } from "./vet-cache";

export type OutboundOptions = {
  /** false in production: refuse hosts that are, or resolve to, non-public addresses. Scheme rules apply either way. */
  allowPrivateNetworks: boolean;
  /** Non-public addresses an operator trusts anyway (e.g. an internal webhook receiver); exact IPs, any port. */
  allowAddresses?: readonly string[];
  /**
   * Host names an operator trusts with non-public addresses (lower case, no trailing dot): a URL naming one may
   * reach loopback or private networks, while every other host keeps the public-only rule.
   */
  allowHosts?: readonly string[];
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

export const DEFAULT_TIMEOUT_MS = 10_000;
