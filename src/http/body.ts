// Reading request bodies safely: the byte cap is enforced while the stream is read (Content-Length or chunked), and
// JSON nesting is measured by a linear scan of the bytes before anything recursive (JSON.parse, schema checks) runs.
import { errors } from "../kernel";

/** Deepest JSON nesting (arrays and objects together) a request body may have. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
/** "Not in this chunk", as a position that sorts after every real one. */
const NONE = Number.MAX_SAFE_INTEGER;
const orNone = (position: number) => (position === -1 ? NONE : position);

/**
 * Tracks JSON nesting over bytes fed in any chunking. It works on raw UTF-8: every byte of a multi-byte character is
 * 0x80 or above, so the structural characters and quotes can never be part of one. Only depth is judged here; the
 * rest of the syntax is JSON.parse's job.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly maxDepth = MAX_JSON_DEPTH) {}

  /** Feeds the next bytes; false as soon as the nesting goes deeper than the maximum. */
  feed(bytes: Uint8Array): boolean {
    let { depth, inString, escaped } = this;
    const max = this.maxDepth;
    // Inside strings the scan jumps from one quote or backslash to the next with the native indexOf; both positions
    // only move forward, so a chunk costs one pass however its strings are built.
    let nextQuote = -1;
    let nextBackslash = -1;
    for (let i = 0; i < bytes.length; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        // A position behind i is stale and looked up again; NONE stays: there is none left in this chunk.
        if (nextQuote !== NONE && nextQuote < i) nextQuote = orNone(bytes.indexOf(QUOTE, i));
        if (nextBackslash !== NONE && nextBackslash < i) nextBackslash = orNone(bytes.indexOf(BACKSLASH, i));
        if (nextBackslash < nextQuote) {
          i = nextBackslash;
          escaped = true;
        } else if (nextQuote !== NONE) {
          i = nextQuote;
          inString = false;
        } else {
          break; // the string goes on past this chunk
        }
        continue;
      }
      const b = bytes[i];
      if (b === QUOTE) {
        inString = true;
      } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
        if (++depth > max) return false;
      } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
        // Unbalanced closers are a syntax error JSON.parse will report; they must not buy extra depth meanwhile.
        if (depth > 0) depth--;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return true;
  }
}

export type ReadBodyOptions = {
  maxBytes: number;
  /** Scan for JSON nesting while reading (off for bodies kept as raw text, such as signed payment webhooks). */
  json: boolean;
};

/**
 * The request body's bytes, read chunk by chunk: 413 the moment it passes `maxBytes`, 400 the moment its JSON nests
 * deeper than MAX_JSON_DEPTH; either way the stream is cancelled, so the rest is never buffered.
 */
export async function readBodyBytes(request: Request, opts: ReadBodyOptions): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > opts.maxBytes) throw errors.bodyTooLarge(opts.maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const scanner = opts.json ? new JsonDepthScanner() : null;
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > opts.maxBytes) throw errors.bodyTooLarge(opts.maxBytes);
      if (scanner && !scanner.feed(value)) {
        throw errors.badRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`);
      }
      chunks.push(value);
    }
  } catch (e) {
    // Tell the sender to stop; nothing more of this body will be read.
    reader.cancel().catch(() => undefined);
    throw e;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

/**
 * The request body as text, read within the same caps as readBodyBytes. JSON must be UTF-8 (RFC 8259): a body in
 * another encoding (a Latin-1 "Café") is a 400, not text with its accents turned into U+FFFD and stored.
 */
export async function readBodyText(request: Request, opts: ReadBodyOptions): Promise<string> {
  const bytes = await readBodyBytes(request, opts);
  if (!opts.json) return new TextDecoder().decode(bytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw errors.badRequest("The request body is not valid UTF-8: send JSON encoded as UTF-8 (a Latin-1 or Windows-1252 body loses its accents).");
  }
}
