// Safe outbound HTTP against real local servers: redirects, body caps, Content-Length, timeouts and TLS host names.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { outboundFetch } from "../src/net";
import { type Hit, rawServer, serve, noDns, base, expectCode, text, stopServers } from "./support/net-servers";

afterEach(stopServers);

describe("outboundFetch: redirects", () => {
  // /r/N redirects N more times; relative and absolute Locations alternate so both are resolved.
  const chain = () =>
    serve((_req, url) => {
      const n = Number(url.pathname.split("/")[2]);
      if (n === 0) return new Response("end of chain");
      const location = n % 2 ? `${n - 1}` : `${url.origin}/r/${n - 1}`;
      return new Response(null, { status: 302, headers: { location } });
    });

  test("a chain of 3 is followed and reports the final URL", async () => {
    const s = chain();
    const res = await outboundFetch(s.url("/r/3"), base());
    expect(res).toMatchObject({ status: 200, redirects: 3, url: s.url("/r/0") });
    expect(text(res.body)).toBe("end of chain");
    expect(s.hits.map((h) => h.path)).toEqual(["/r/3", "/r/2", "/r/1", "/r/0"]);
  });

  test("a chain of 4 is refused without requesting the 4th target", async () => {
    const s = chain();
    await expectCode(outboundFetch(s.url("/r/4"), base()), "too_many_redirects");
    expect(s.hits.map((h) => h.path)).toEqual(["/r/4", "/r/3", "/r/2", "/r/1"]);
  });

  test("maxRedirects 0 returns the 3xx itself; maxRedirects 1 follows one", async () => {
    const s = chain();
    const res = await outboundFetch(s.url("/r/2"), base({ maxRedirects: 0 }));
    expect(res).toMatchObject({ status: 302, redirects: 0, url: s.url("/r/2") });
    expect(res.headers.get("location")).toBe(s.url("/r/1"));
    expect(s.hits).toHaveLength(1);
    await expectCode(outboundFetch(s.url("/r/2"), base({ maxRedirects: 1 })), "too_many_redirects");
  });

  test("a redirect from an allowed host to a blocked one is refused before contacting it", async () => {
    const inside = serve(() => new Response("internal"), { hostname: "::1" });
    const targets = [inside.url("/"), `http://localhost:${inside.port}/`, `http://internal.example:${inside.port}/`, `http://0x7f000002:${inside.port}/`];
    const front = serve((_req, url) => new Response(null, { status: 302, headers: { location: targets[Number(url.pathname.slice(1))] } }));
    const strict = base({
      allowPrivateNetworks: false,
      allowAddresses: ["127.0.0.1"],
      resolve: async (name) => (name === "internal.example" ? ["127.0.0.2"] : noDns(name)),
    });
    for (let i = 0; i < targets.length; i++) {
      await expectCode(outboundFetch(front.url(`/${i}`), strict), "blocked_address");
    }
    expect(front.hits).toHaveLength(targets.length);
    expect(inside.hits).toHaveLength(0);
  });

  test("a redirect to another scheme is refused even with private networks allowed", async () => {
    const locations = ["file:///etc/passwd", "ftp://127.0.0.1/", "gopher://127.0.0.1/"];
    const s = serve((_req, url) => new Response(null, { status: 301, headers: { location: locations[Number(url.pathname.slice(1))] } }));
    for (let i = 0; i < locations.length; i++) await expectCode(outboundFetch(s.url(`/${i}`), base()), "scheme");
  });

  test("303 turns a POST into a GET; 307 keeps it; credentials stay on the same origin only", async () => {
    const target = serve(() => new Response("landed"));
    const s = serve((_req, url) => {
      if (url.pathname === "/303") return new Response(null, { status: 303, headers: { location: "/end" } });
      if (url.pathname === "/307") return new Response(null, { status: 307, headers: { location: "/end" } });
      if (url.pathname === "/away") {
        return new Response(null, { status: 307, headers: { location: `http://elsewhere.example:${target.port}/end` } });
      }
      return new Response("landed");
    });
    const post = base({
      method: "POST",
      body: "payload",
      headers: { authorization: "Bearer t", "content-type": "text/plain" },
      resolve: async () => ["127.0.0.1"],
    });
    await outboundFetch(s.url("/303"), post);
    await outboundFetch(s.url("/307"), post);
    await outboundFetch(s.url("/away"), post);
    const summary = (h: Hit) => [h.method, h.path, h.body, h.authorization];
    expect(s.hits.map(summary)).toEqual([
      ["POST", "/303", "payload", "Bearer t"],
      ["GET", "/end", "", "Bearer t"],
      ["POST", "/307", "payload", "Bearer t"],
      ["POST", "/end", "payload", "Bearer t"],
      ["POST", "/away", "payload", "Bearer t"],
    ]);
    expect(target.hits.map(summary)).toEqual([["POST", "/end", "payload", null]]);
  });
});

describe("outboundFetch: body cap", () => {
  const CHUNK = 256;
  const server = () =>
    serve((_req, url) => {
      const [, kind, n] = url.pathname.split("/");
      const size = Number(n);
      if (kind === "fixed") return new Response(new Uint8Array(size).fill(120));
      if (kind === "stream") {
        let sent = 0;
        return new Response(
          new ReadableStream({
            pull(c) {
              if (sent >= size) return c.close();
              const part = Math.min(CHUNK, size - sent);
              sent += part;
              c.enqueue(new Uint8Array(part).fill(121));
            },
          }),
        );
      }
      // Sends more than any cap used here at once, then never finishes: only an early stop can end the read.
      return new Response(
        new ReadableStream({
          async pull(c) {
            c.enqueue(new Uint8Array(size).fill(122));
            await new Promise(() => {});
          },
        }),
      );
    });

  test("a body of exactly maxBytes is whole, with and without Content-Length", async () => {
    const s = server();
    for (const kind of ["fixed", "stream"]) {
      for (const overflow of ["error", "truncate"] as const) {
        const res = await outboundFetch(s.url(`/${kind}/1000`), base({ maxBytes: 1000, overflow }));
        expect([kind, overflow, res.body.length, res.truncated]).toEqual([kind, overflow, 1000, false]);
      }
    }
  });

  test("the streamed response really has no Content-Length and the fixed one has it", async () => {
    const s = server();
    expect((await outboundFetch(s.url("/stream/3000"), base())).headers.get("content-length")).toBeNull();
    expect((await outboundFetch(s.url("/fixed/3000"), base())).headers.get("content-length")).toBe("3000");
  });

  test('overflow "error" throws too_large one byte over the cap, with and without Content-Length', async () => {
    const s = server();
    for (const path of ["/fixed/1001", "/stream/1001", "/fixed/50000", "/stream/50000"]) {
      const e = await expectCode(outboundFetch(s.url(path), base({ maxBytes: 1000, overflow: "error" })), "too_large");
      expect(e.message).toContain("1000");
    }
  });

  test('overflow "truncate" returns the first maxBytes and says so', async () => {
    const s = server();
    for (const path of ["/fixed/5000", "/stream/5000", "/fixed/1001"]) {
      const res = await outboundFetch(s.url(path), base({ maxBytes: 1000, overflow: "truncate" }));
      expect([path, res.status, res.body.length, res.truncated]).toEqual([path, 200, 1000, true]);
    }
  });

  test("reading stops as soon as the cap is passed, without waiting for the rest of the body", async () => {
    const s = server();
    const started = performance.now();
    await expectCode(outboundFetch(s.url("/stall/4000"), base({ maxBytes: 1000, overflow: "error", timeoutMs: 3000 })), "too_large");
    const res = await outboundFetch(s.url("/stall/4000"), base({ maxBytes: 1000, overflow: "truncate", timeoutMs: 3000 }));
    expect([res.body.length, res.truncated]).toEqual([1000, true]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("outboundFetch: Content-Length", () => {
  test("a Content-Length over the cap is refused before the body arrives", async () => {
    // 10 bytes of a declared 50 000, then silence: only the header can end this before the timeout.
    const raw = rawServer("HTTP/1.1 200 OK\r\ncontent-length: 50000\r\ncontent-type: image/png\r\n\r\n0123456789");
    const started = performance.now();
    const e = await expectCode(
      outboundFetch(`http://127.0.0.1:${raw.port}/`, base({ maxBytes: 1000, overflow: "error", timeoutMs: 3000 })),
      "too_large",
    );
    expect(e.message).toContain("50000");
    expect(performance.now() - started).toBeLessThan(1500);
    expect(raw.requests).toBe(1);
  });
});

describe("outboundFetch: timeout", () => {
  test("slow response headers time out", async () => {
    const s = serve(async () => {
      await Bun.sleep(3000);
      return new Response("late");
    });
    const started = performance.now();
    const e = await expectCode(outboundFetch(s.url("/"), base({ timeoutMs: 200 })), "timeout");
    expect(e.message).toContain("200");
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test("a body that stalls after the headers times out: the limit covers the body read", async () => {
    const s = serve(
      () =>
        new Response(
          new ReadableStream({
            async pull(c) {
              c.enqueue(new TextEncoder().encode("partial"));
              await new Promise(() => {});
            },
          }),
        ),
    );
    const started = performance.now();
    await expectCode(outboundFetch(s.url("/"), base({ timeoutMs: 300 })), "timeout");
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test("a slow resolver counts against the same limit", async () => {
    const resolve = () => new Promise<string[]>(() => {});
    await expectCode(outboundFetch("http://slow-dns.example/", base({ timeoutMs: 150, resolve })), "timeout");
  });

  test("the caller's own signal aborts the request with its reason", async () => {
    const s = serve(async () => {
      await Bun.sleep(3000);
      return new Response("late");
    });
    const controller = new AbortController();
    const reason = new Error("job cancelled");
    setTimeout(() => controller.abort(reason), 100);
    await expect(outboundFetch(s.url("/"), base({ signal: controller.signal })).catch((e) => e)).resolves.toBe(reason);
    const already = AbortSignal.abort(reason);
    await expect(outboundFetch(s.url("/"), base({ signal: already })).catch((e) => e)).resolves.toBe(reason);
  });
  test("one caller signal under several requests: earlier ones done, the ones in flight all abort with its reason", async () => {
    let slow = false;
    const s = serve(async () => {
      if (slow) await Bun.sleep(3000);
      return new Response("ok");
    });
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) expect((await outboundFetch(s.url("/"), base({ signal: controller.signal }))).status).toBe(200);
    slow = true;
    const reason = new Error("job cancelled");
    const inFlight = [1, 2, 3, 4].map(() => outboundFetch(s.url("/"), base({ signal: controller.signal })).catch((e) => e));
    setTimeout(() => controller.abort(reason), 100);
    const started = performance.now();
    expect(await Promise.all(inFlight)).toEqual([reason, reason, reason, reason]);
    expect(performance.now() - started).toBeLessThan(1500);
  });
});

describe("outboundFetch: TLS keeps the original host name", () => {
  const fixtures = join(import.meta.dir, "fixtures", "tls");
  const load = async () => ({
    cert: await Bun.file(join(fixtures, "shop.test.crt")).text(),
    key: await Bun.file(join(fixtures, "shop.test.key")).text(),
  });

  test("SNI and the certificate check use the URL's name while the connection goes to the pinned IP", async () => {
    const tls = await load();
    const s = serve((req) => new Response(`host=${req.headers.get("host")}`), { tls });
    const opts = base({ ca: tls.cert, resolve: async () => ["127.0.0.1"] });
    const res = await outboundFetch(`https://shop.test:${s.port}/`, opts);
    expect(text(res.body)).toBe(`host=shop.test:${s.port}`);
    expect(res.address).toBe("127.0.0.1");
    // Same IP, another name: the certificate is for shop.test, so the check must fail.
    await expectCode(outboundFetch(`https://other.test:${s.port}/`, opts), "tls");
    // Without the test CA the self-signed certificate is not trusted.
    await expectCode(outboundFetch(`https://shop.test:${s.port}/`, base({ resolve: async () => ["127.0.0.1"] })), "tls");
    expect(s.hits).toHaveLength(1);
  });
});
