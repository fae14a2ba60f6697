// Hostile JSON bodies: nesting deeper than 64 is a 400 before any recursive work, the byte cap holds while reading
// (with or without Content-Length), and a flood of hostile bodies neither stalls /healthz nor grows the process.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { JsonDepthScanner } from "../src/http/body";
import { startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** A body in the shape of a product create whose `name` holds `levels` nested arrays. */
const deepProduct = (levels: number) => `{"name":${deep(levels)},"image_url":"http://x.test/a.jpg"}`;

async function send(method: string, path: string, token: string, raw: string | ReadableStream, headers: Record<string, string> = {}) {
  const res = await t.service.handle(
    new Request(`http://vitrin.test${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
      body: raw,
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe("nesting", () => {
  test("a body nested 20,000 levels deep is a 400 in the catalogue's shape", async () => {
    t = await startService();
    const a = await t.newAccount();
    const res = await send("POST", "/v1/products", a.token, deepProduct(20_000));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "Bad request", code: "bad_request", message: expect.stringContaining("deeper than 64 levels") });
  });

  test("a 240 KB deep body is a 400, not a 500", async () => {
    t = await startService();
    const a = await t.newAccount();
    const raw = deep(120_000);
    expect(raw.length).toBe(240_000);
    const res = await send("PUT", "/v1/webhooks/endpoint", a.token, raw);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("Bad request");
  });

  test("64 levels are accepted as far as the parser goes (the schema then judges the value)", async () => {
    t = await startService();
    const a = await t.newAccount();
    // The object itself is level 1, so `name` may nest 63 more.
    const res = await send("POST", "/v1/products", a.token, deepProduct(63));
    expect(res.status).toBe(422);
    const over = await send("POST", "/v1/products", a.token, deepProduct(64));
    expect(over.status).toBe(400);
  });

  test("brackets and escaped quotes inside strings do not count as nesting", async () => {
    t = await startService();
    const a = await t.newAccount();
    // A string full of brackets, with an escaped quote in the middle: all of it is one string, nesting 1.
    const raw = String.raw`{"url":"${"[{".repeat(100)} \" ${"[".repeat(100)}"}`;
    expect(JSON.parse(raw).url).toContain('" [[[');
    const res = await send("PUT", "/v1/webhooks/endpoint", a.token, raw);
    // 422 for the URL itself proves the body was parsed and handed to the route.
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: "url", message: expect.any(String) }]);
  });

  test("a string ending in an escaped backslash closes, so real nesting after it still counts", async () => {
    t = await startService();
    const a = await t.newAccount();
    const raw = String.raw`{"url":"x\\","pad":${deep(100)}}`;
    expect(JSON.parse(raw).url).toBe("x\\");
    const res = await send("PUT", "/v1/webhooks/endpoint", a.token, raw);
    expect(res.status).toBe(400);
  });
});

describe("the depth scanner", () => {
  /** The plain byte-at-a-time reading of the same rule: the deepest nesting outside strings. */
  function referenceDepth(text: string): number {
    let depth = 0;
    let deepest = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "[" || c === "{") deepest = Math.max(deepest, ++depth);
      else if ((c === "]" || c === "}") && depth > 0) depth--;
    }
    return deepest;
  }

  test("agrees with a byte-at-a-time reference however the body is split into chunks", () => {
    // A small seeded generator, so a failure can be replayed.
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const alphabet = ['"', "\\", "[", "]", "{", "}", "a", ":", ",", "é"];
    for (let round = 0; round < 2000; round++) {
      const text = Array.from({ length: 1 + random(200) }, () => alphabet[random(alphabet.length)]).join("");
      const bytes = new TextEncoder().encode(text);
      const max = 1 + random(8);
      const scanner = new JsonDepthScanner(max);
      let ok = true;
      for (let at = 0; at < bytes.length && ok; ) {
        const size = 1 + random(12);
        ok = scanner.feed(bytes.subarray(at, at + size));
        at += size;
      }
      expect([text, max, ok]).toEqual([text, max, referenceDepth(text) <= max]);
    }
  });
});

describe("byte cap", () => {
  test("a chunked body without Content-Length over the cap is a 413", async () => {
    t = await startService({ VITRIN_MAX_BODY_BYTES: "4096" });
    const a = await t.newAccount();
    let pulled = 0;
    // An endless stream: only a reader that stops at the cap (and cancels) lets this request finish.
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode(`{"name":"${"x".repeat(1000)}`));
      },
    });
    const res = await send("POST", "/v1/products", a.token, endless);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "File too large", code: "body_too_large", message: expect.any(String), max_size: 4096 });
    expect(pulled).toBeLessThan(20);
  });

  test("a body just under the cap is read whole", async () => {
    t = await startService({ VITRIN_MAX_BODY_BYTES: "4096" });
    const a = await t.newAccount();
    const raw = JSON.stringify({ name: "é".repeat(1000), image_url: "ftp://nope" });
    expect(new TextEncoder().encode(raw).length).toBeLessThan(4096);
    const res = await send("POST", "/v1/products", a.token, raw);
    expect(res.status).toBe(422);
  });
});

describe("normal bodies", () => {
  test("ordinary JSON still reaches the route", async () => {
    t = await startService();
    const a = await t.newAccount();
    const res = await send("PUT", "/v1/webhooks/endpoint", a.token, JSON.stringify({ url: "http://127.0.0.1:9/hook" }));
    expect(res).toEqual({ status: 200, body: { object: "webhook_url", url: "http://127.0.0.1:9/hook" } });
  });

  test("an empty body is an empty object and a non-JSON type is a 400", async () => {
    t = await startService();
    const a = await t.newAccount();
    expect((await send("PUT", "/v1/webhooks/endpoint", a.token, "")).status).toBe(422);
    const wrongType = await send("PUT", "/v1/webhooks/endpoint", a.token, "url=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toBe("Bad request");
  });
});

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** A child's stdout, one line at a time. */
async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
    }
  }
}

test("10 parallel 1 MB hostile bodies keep /healthz p95 under 100 ms and RSS within 50 MB", async () => {
  t = await startService();
  const a = await t.newAccount();
  const server = t.service.listen(0, "127.0.0.1");
  const base = `http://127.0.0.1:${server.port}`;
  // Warm up: the first requests compile routes and allocate pools that are not leaks.
  await send("POST", "/v1/products", a.token, deepProduct(20_000));
  for (let i = 0; i < 20; i++) await fetch(`${base}/healthz`).then((r) => r.text());
  Bun.gc(true);
  const rssBefore = process.memoryUsage().rss;

  // The sender is its own process, so only the server's work competes with /healthz on this event loop.
  const flood = Bun.spawn([process.execPath, join(import.meta.dir, "support/hostile-flood.ts"), String(server.port), a.token], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = linesOf(flood.stdout);
  try {
    expect((await out.next()).value).toBe("ready");
    await Bun.sleep(300);
    const latencies: number[] = [];
    for (let i = 0; i < 100; i++) {
      const started = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.text();
      latencies.push(performance.now() - started);
      expect(res.status).toBe(200);
      await Bun.sleep(20);
    }
    flood.stdin.write("stop\n");
    flood.stdin.end();
    const statuses: Record<string, number> = JSON.parse((await out.next()).value);
    expect(await flood.exited).toBe(0);

    expect(Object.keys(statuses)).toEqual(["400"]);
    expect(statuses["400"]).toBeGreaterThanOrEqual(50);
    Bun.gc(true);
    const grownMb = (process.memoryUsage().rss - rssBefore) / (1024 * 1024);
    // p95, not p99: a body parsed on the event loop would hold up most of the 100 probes (the flood never stops while
    // they run), while on a loaded 2-core machine the slowest one or two can stall on the scheduler alone (seen: 122 ms).
    const p95 = percentile(latencies, 95);
    console.log(`hostile flood: ${statuses["400"]} bodies answered 400; /healthz p95 ${p95.toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; RSS +${grownMb.toFixed(1)} MB`);
    expect(p95).toBeLessThan(100);
    expect(grownMb).toBeLessThan(50);
  } finally {
    flood.kill();
  }
});
