// The outbound fast path: remembered DNS answers (VetCache) under an explicit clock, and the whole-body read of
// responses whose Content-Length is within the cap. The address rules themselves are in net.test.ts.
import { afterEach, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { OutboundError, outboundFetch, VetCache, type OutboundErrorCode, type OutboundOptions } from "../src/net";

const servers: { stop(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop();
});

function serve(handler: (req: Request) => Response | Promise<Response> = () => new Response("ok")) {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      hits.push(new URL(req.url).pathname);
      return handler(req);
    },
  });
  servers.push({ stop: () => void server.stop(true) });
  return { port: server.port!, hits };
}

/** Answers each name from a table the test edits, counting lookups. */
function dns(answers: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (name: string) => {
    asked.push(name);
    const a = answers[name];
    if (!a) throw new Error(`ENOTFOUND ${name}`);
    return [...a];
  };
  return { answers, asked, resolve };
}

function clock() {
  let t = 1_000;
  return {
    now: () => t,
    tick: (ms: number) => {
      t += ms;
    },
  };
}

const base = (extra: Partial<OutboundOptions>): OutboundOptions => ({
  allowPrivateNetworks: true,
  maxBytes: 1_000_000,
  overflow: "error",
  timeoutMs: 5_000,
  ...extra,
});

async function expectCode(p: Promise<unknown>, code: OutboundErrorCode): Promise<OutboundError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (!(e instanceof OutboundError)) throw new Error(`expected an OutboundError ${code}, got ${String(e)}`);
  expect(e.code).toBe(code);
  return e;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("VetCache: DNS answers are reused for the TTL, then resolved again", () => {
  test("within the TTL a host is resolved once; the request still goes to the vetted address", async () => {
    const s = serve((req) => new Response(`host=${req.headers.get("host")}`));
    const c = clock();
    const cache = new VetCache({ ttlMs: 10_000, now: c.now });
    const d = dns({ "hooks.example": ["127.0.0.1"] });
    const opts = base({ resolve: d.resolve, vetCache: cache });
    for (let i = 0; i < 3; i++) {
      const res = await outboundFetch(`http://hooks.example:${s.port}/in`, opts);
      expect([res.status, text(res.body), res.address]).toEqual([200, `host=hooks.example:${s.port}`, "127.0.0.1"]);
      c.tick(3_000);
    }
    expect(d.asked).toEqual(["hooks.example"]);
    // DNS now points elsewhere, but the pinned connection still goes to the address that was vetted.
    d.answers["hooks.example"] = ["127.0.0.3"];
    expect((await outboundFetch(`http://hooks.example:${s.port}/in`, opts)).address).toBe("127.0.0.1");
    expect(s.hits).toHaveLength(4);
  });

  test("a host that turns private is refused at the first request after the TTL, without contact", async () => {
    const s = serve();
    const c = clock();
    const cache = new VetCache({ ttlMs: 10_000, now: c.now });
    const d = dns({ "hooks.example": ["127.0.0.1"] });
    // Only 127.0.0.1 is trusted; 127.0.0.2 stands for any non-public address the name might move to.
    const strict = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"], resolve: d.resolve, vetCache: cache });
    const url = `http://hooks.example:${s.port}/in`;
    expect((await outboundFetch(url, strict)).status).toBe(200);
    d.answers["hooks.example"] = ["127.0.0.2"];
    c.tick(9_999);
    expect((await outboundFetch(url, strict)).status).toBe(200);
    expect(d.asked).toHaveLength(1);
    c.tick(1);
    const e = await expectCode(outboundFetch(url, strict), "blocked_address");
    expect(e.message).toContain("127.0.0.2");
    expect(d.asked).toHaveLength(2);
    expect(s.hits).toHaveLength(2);
    // The refused answer is what DNS says now, so it keeps being refused, and is re-checked after the next TTL.
    await expectCode(outboundFetch(url, strict), "blocked_address");
    d.answers["hooks.example"] = ["127.0.0.1"];
    c.tick(10_000);
    expect((await outboundFetch(url, strict)).status).toBe(200);
    expect(d.asked).toHaveLength(3);
  });

  test("a mixed answer that appears after the TTL is refused: every address of a cached answer is vetted", async () => {
    const s = serve();
    const c = clock();
    const cache = new VetCache({ ttlMs: 1_000, now: c.now });
    const d = dns({ "hooks.example": ["127.0.0.1"] });
    const strict = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"], resolve: d.resolve, vetCache: cache });
    const url = `http://hooks.example:${s.port}/`;
    await outboundFetch(url, strict);
    d.answers["hooks.example"] = ["127.0.0.1", "::ffff:7f00:2"];
    c.tick(1_000);
    await expectCode(outboundFetch(url, strict), "blocked_address");
    await expectCode(outboundFetch(url, strict), "blocked_address");
    expect(s.hits).toHaveLength(1);
  });

  test("a cached answer is vetted again under each request's own rules", async () => {
    const s = serve();
    const cache = new VetCache({ now: clock().now });
    const d = dns({ "hooks.example": ["127.0.0.1"] });
    const url = `http://hooks.example:${s.port}/`;
    expect((await outboundFetch(url, base({ resolve: d.resolve, vetCache: cache }))).status).toBe(200);
    // Same resolver, same fresh answer, stricter rules: refused without asking DNS again.
    await expectCode(outboundFetch(url, base({ allowPrivateNetworks: false, resolve: d.resolve, vetCache: cache })), "blocked_address");
    const trusted = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"], resolve: d.resolve, vetCache: cache });
    expect((await outboundFetch(url, trusted)).status).toBe(200);
    await expectCode(outboundFetch(url, { ...trusted, allowAddresses: ["127.0.0.2"] }), "blocked_address");
    // IP literals are remembered too (their classification cannot change), under the same per-request rules.
    await expectCode(outboundFetch(`http://127.0.0.1:${s.port}/`, base({ allowPrivateNetworks: false, vetCache: cache })), "blocked_address");
    expect(d.asked).toHaveLength(1);
    expect(s.hits).toHaveLength(2);
  });

  test("names refused by name stay refused with a warm cache", async () => {
    const s = serve();
    const cache = new VetCache({ now: clock().now });
    const d = dns({ "printer.local": ["127.0.0.1"], "localhost": ["127.0.0.1"] });
    for (const host of ["printer.local", "localhost"]) {
      expect((await outboundFetch(`http://${host}:${s.port}/`, base({ resolve: d.resolve, vetCache: cache }))).status).toBe(200);
      const strict = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"], resolve: d.resolve, vetCache: cache });
      await expectCode(outboundFetch(`http://${host}:${s.port}/`, strict), "blocked_address");
    }
    expect(s.hits).toHaveLength(2);
  });

  test("failed, empty and nonsense answers are not kept: the next request asks again", async () => {
    const s = serve();
    const cache = new VetCache({ now: clock().now });
    const d = dns({});
    const opts = base({ resolve: d.resolve, vetCache: cache });
    const url = `http://hooks.example:${s.port}/`;
    await expectCode(outboundFetch(url, opts), "dns");
    d.answers["hooks.example"] = [];
    await expectCode(outboundFetch(url, opts), "dns");
    d.answers["hooks.example"] = ["not-an-ip"];
    await expectCode(outboundFetch(url, opts), "dns");
    d.answers["hooks.example"] = ["127.0.0.1"];
    expect((await outboundFetch(url, opts)).status).toBe(200);
    expect((await outboundFetch(url, opts)).status).toBe(200);
    expect(d.asked).toHaveLength(4);
  });

  test("requests that miss together share one lookup", async () => {
    const s = serve();
    const cache = new VetCache({ now: clock().now });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let lookups = 0;
    const resolve = async () => {
      lookups++;
      await gate;
      return ["127.0.0.1"];
    };
    const all = Promise.all(Array.from({ length: 5 }, () => outboundFetch(`http://hooks.example:${s.port}/`, base({ resolve, vetCache: cache }))));
    release();
    expect((await all).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(lookups).toBe(1);
  });

  test("a shared lookup still ends each request at its own timeout, and a hung one is not joined after the TTL", async () => {
    const s = serve();
    const c = clock();
    const cache = new VetCache({ ttlMs: 10_000, now: c.now });
    let hang = true;
    let lookups = 0;
    const resolve = () => {
      lookups++;
      return hang ? new Promise<string[]>(() => {}) : Promise.resolve(["127.0.0.1"]);
    };
    const url = `http://stuck.example:${s.port}/`;
    await expectCode(outboundFetch(url, base({ resolve, vetCache: cache, timeoutMs: 100 })), "timeout");
    hang = false;
    await expectCode(outboundFetch(url, base({ resolve, vetCache: cache, timeoutMs: 100 })), "timeout");
    expect(lookups).toBe(1);
    c.tick(10_000);
    expect((await outboundFetch(url, base({ resolve, vetCache: cache }))).status).toBe(200);
    expect(lookups).toBe(2);
  });

  test("redirect hops are vetted against the cache's answers too, and refused before contact", async () => {
    const inside = serve(() => new Response("internal"));
    const front = serve(() => new Response(null, { status: 302, headers: { location: `http://inside.example:${inside.port}/` } }));
    const c = clock();
    const cache = new VetCache({ ttlMs: 10_000, now: c.now });
    const d = dns({ "front.example": ["127.0.0.1"], "inside.example": ["127.0.0.1"] });
    // Warm both names under permissive rules, then follow the redirect under strict ones.
    await outboundFetch(`http://inside.example:${inside.port}/`, base({ resolve: d.resolve, vetCache: cache }));
    const strict = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"], resolve: d.resolve, vetCache: cache });
    expect((await outboundFetch(`http://front.example:${front.port}/`, strict)).redirects).toBe(1);
    d.answers["inside.example"] = ["127.0.0.2"];
    c.tick(10_000);
    await expectCode(outboundFetch(`http://front.example:${front.port}/`, strict), "blocked_address");
    expect(front.hits).toHaveLength(2);
    expect(inside.hits).toHaveLength(2);
  });

  test("answers are kept per resolver, so one resolver never sees another's", async () => {
    const s = serve();
    const cache = new VetCache({ now: clock().now });
    const good = dns({ "hooks.example": ["127.0.0.1"] });
    const bad = dns({ "hooks.example": ["127.0.0.2"] });
    const strict = { allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"], vetCache: cache };
    expect((await outboundFetch(`http://hooks.example:${s.port}/`, base({ ...strict, resolve: good.resolve }))).status).toBe(200);
    await expectCode(outboundFetch(`http://hooks.example:${s.port}/`, base({ ...strict, resolve: bad.resolve })), "blocked_address");
    expect([good.asked.length, bad.asked.length]).toEqual([1, 1]);
  });

  test("vetCache: null resolves every hop afresh; the default is a process-wide cache", async () => {
    const s = serve();
    const d = dns({ "hooks.example": ["127.0.0.1"] });
    for (let i = 0; i < 2; i++) await outboundFetch(`http://hooks.example:${s.port}/`, base({ resolve: d.resolve, vetCache: null }));
    expect(d.asked).toHaveLength(2);
    const e = dns({ "hooks.example": ["127.0.0.1"] });
    for (let i = 0; i < 2; i++) await outboundFetch(`http://hooks.example:${s.port}/`, base({ resolve: e.resolve }));
    expect(e.asked).toHaveLength(1);
  });

  test("at most maxEntries answers are kept; the oldest goes first", async () => {
    const cache = new VetCache({ maxEntries: 2, now: clock().now });
    const d = dns({ "a.example": ["127.0.0.1"], "b.example": ["127.0.0.1"], "c.example": ["127.0.0.1"] });
    const names = ["a.example", "b.example", "c.example", "c.example", "b.example", "a.example"];
    for (const name of names) await cache.lookup(d.resolve, name);
    expect(d.asked).toEqual(["a.example", "b.example", "c.example", "a.example"]);
  });

  test("clear() forgets every answer", async () => {
    const cache = new VetCache({ now: clock().now });
    const d = dns({ "a.example": ["127.0.0.1"] });
    await cache.lookup(d.resolve, "a.example");
    cache.clear();
    await cache.lookup(d.resolve, "a.example");
    expect(d.asked).toHaveLength(2);
  });
});

/** A bare TCP server that answers every request with fixed bytes and then keeps the connection open. */
function rawServer(response: string | Uint8Array) {
  const sockets = new Set<{ end(): void }>();
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (sock) => void sockets.add(sock),
      data: (sock) => void sock.write(response),
      close: (sock) => void sockets.delete(sock),
    },
  });
  servers.push({
    stop() {
      for (const sock of sockets) sock.end();
      listener.stop(true);
    },
  });
  return listener.port;
}

describe("outboundFetch: bodies with a Content-Length within the cap are read whole", () => {
  test("a short declared body is returned as is, in both overflow modes", async () => {
    const port = rawServer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello");
    for (const overflow of ["error", "truncate"] as const) {
      const res = await outboundFetch(`http://127.0.0.1:${port}/`, base({ maxBytes: 5, overflow }));
      expect([text(res.body), res.truncated]).toEqual(["hello", false]);
    }
  });

  test("bytes past the declared length are not part of the body", async () => {
    const port = rawServer("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello and more that was never declared");
    const res = await outboundFetch(`http://127.0.0.1:${port}/`, base({ maxBytes: 10, overflow: "error" }));
    expect(text(res.body)).toBe("hello");
  });

  test("a declared body that stalls half-way still ends at the timeout", async () => {
    const port = rawServer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten b");
    await expectCode(outboundFetch(`http://127.0.0.1:${port}/`, base({ maxBytes: 1000, timeoutMs: 200 })), "timeout");
  });

  test("a compressed body is capped by its decoded size, whatever its Content-Length says", async () => {
    const big = gzipSync(new Uint8Array(50_000).fill(97));
    expect(big.length).toBeLessThan(1000);
    const s = serve(() => new Response(big, { headers: { "content-encoding": "gzip", "content-length": String(big.length) } }));
    const url = `http://127.0.0.1:${s.port}/`;
    await expectCode(outboundFetch(url, base({ maxBytes: 1000, overflow: "error" })), "too_large");
    const res = await outboundFetch(url, base({ maxBytes: 1000, overflow: "truncate" }));
    expect([res.body.length, res.truncated]).toEqual([1000, true]);
  });
});
