// Safe outbound HTTP for URLs that users hand us (product images, webhook deliveries): SSRF-vetted, pinned, capped.
// The face of src/net; other folders import from here only.
//
// Inside: address.ts (is an IP address public?), vet-cache.ts (a short memory of DNS answers), vet.ts (vetting a
// hop: scheme, host name, every resolved address), send.ts (outboundFetch: pinning, redirects, timeouts; the why of
// pinning is written there), body.ts (the byte cap), check.ts (vetting a URL without fetching it), data-url.ts,
// errors.ts, target.ts (parsed URLs), options.ts (what a caller passes and gets back).
export { classifyAddress, parseIPv6, type AddressVerdict } from "./address";
export { checkOutboundUrl, describeOutboundError, type UrlCheckOptions } from "./check";
export { decodeDataUrl, type DataUrlContent } from "./data-url";
export { OutboundError, isOutboundError, type OutboundErrorCode, type Overflow } from "./errors";
export type { OutboundOptions, OutboundResponse } from "./options";
export { outboundFetch } from "./send";
export { sharedVetCache } from "./vet";
export { DEFAULT_DNS_TTL_MS, VetCache, type VetCacheOptions } from "./vet-cache";
