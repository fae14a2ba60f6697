// Reading a response body under a byte cap: refused ("error") or cut ("truncate") once more than the cap arrives.
import { OutboundError, type Overflow } from "./errors";

function tooLarge(maxBytes: number, known?: number): OutboundError {
  const size = known === undefined ? "more than" : `${known} bytes, more than`;
  return new OutboundError("too_large", `The response body is ${size} the ${maxBytes} bytes allowed.`);
}

export async function readCapped(res: Response, maxBytes: number, overflow: Overflow): Promise<{ body: Uint8Array; truncated: boolean }> {
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
