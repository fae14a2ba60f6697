// Decoding of `data:` URLs (base64 and percent-encoded) under the same byte cap as network fetches.

import { OutboundError, type Overflow } from "./errors";

export type DataUrlContent = { bytes: Uint8Array; contentType: string; truncated: boolean };

const BASE64_CHARS = /^[A-Za-z0-9+/]*$/;

function percentDecode(text: string): Uint8Array {
  const raw = new TextEncoder().encode(text);
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === 0x25 && i + 2 < raw.length) {
      const hex = String.fromCharCode(raw[i + 1], raw[i + 2]);
      if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
        out[n++] = parseInt(hex, 16);
        i += 2;
        continue;
      }
    }
    out[n++] = c;
  }
  return out.subarray(0, n);
}

function overCap(size: number, maxBytes: number): OutboundError {
  return new OutboundError("too_large", `The data: URL holds ${size} bytes, more than the ${maxBytes} allowed.`);
}

/**
 * Decodes a `data:` URL as the fetch standard does. The decoded size is worked out before decoding, so an oversized
 * base64 payload is refused without allocating it.
 */
export function decodeDataUrl(url: string, opts: { maxBytes: number; overflow: Overflow }): DataUrlContent {
  const input = url.trim();
  if (!/^data:/i.test(input)) throw new OutboundError("scheme", "Not a data: URL.");
  const hash = input.indexOf("#");
  const rest = input.slice(5, hash >= 0 ? hash : undefined);
  const comma = rest.indexOf(",");
  if (comma < 0) throw new OutboundError("invalid_url", "The data: URL has no comma before its payload.");
  let meta = rest.slice(0, comma).trim();
  const payload = rest.slice(comma + 1);
  const base64 = /;\s*base64\s*$/i.test(meta);
  if (base64) meta = meta.replace(/;\s*base64\s*$/i, "");
  const contentType = meta === "" || meta.startsWith(";") ? `text/plain${meta || ";charset=US-ASCII"}` : meta;

  if (!base64) {
    // The text is already in memory and percent-decoding never grows it, so decoding before the check costs one copy.
    const bytes = percentDecode(payload);
    if (bytes.length <= opts.maxBytes) return { bytes, contentType, truncated: false };
    if (opts.overflow === "error") throw overCap(bytes.length, opts.maxBytes);
    return { bytes: bytes.slice(0, opts.maxBytes), contentType, truncated: true };
  }

  let text = new TextDecoder("latin1").decode(percentDecode(payload)).replace(/[\t\n\f\r ]/g, "");
  if (text.length % 4 === 0) text = text.replace(/={1,2}$/, "");
  if (text.length % 4 === 1 || !BASE64_CHARS.test(text)) {
    throw new OutboundError("invalid_url", "The data: URL payload is not valid base64.");
  }
  const size = Math.floor((text.length * 3) / 4);
  if (size > opts.maxBytes) {
    if (opts.overflow === "error") throw overCap(size, opts.maxBytes);
    // Decode only whole 4-character groups that cover the cap, then trim to the byte.
    text = text.slice(0, Math.ceil(opts.maxBytes / 3) * 4);
  }
  const bytes = new Uint8Array(Buffer.from(text, "base64"));
  return size > opts.maxBytes
    ? { bytes: bytes.slice(0, opts.maxBytes), contentType, truncated: true }
    : { bytes, contentType, truncated: false };
}
