// Safe outbound HTTP against real local servers: address rules, DNS pinning, redirects, body caps, timeouts, TLS names.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ApiError } from "../src/kernel";
import {
  checkOutboundUrl,
  classifyAddress,
  decodeDataUrl,
  OutboundError,
  outboundFetch,
  type OutboundErrorCode,
  type OutboundOptions,
} from "../src/net";

type Hit = { path: string; method: string; host: string | null; authorization: string | null; body: string };
type TestServer = { port: number; hits: Hit[]; url(path?: string): string; stop(): void };

const servers: { stop(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop();
});

/** A bare TCP server that answers every request with fixed bytes and then keeps the connection open. */
function rawServer(response: string): { port: number; requests: number } {
  const sockets = new Set<{ end(): void }>();
  const state = { port: 0, requests: 0 };
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (sock) => void sockets.add(sock),
      data: (sock) => {
        state.requests++;
        sock.write(response);
      },
      close: (sock) => void sockets.delete(sock),
    },
  });
  state.port = listener.port;
  servers.push({
    stop() {
      for (const sock of sockets) sock.end();
      listener.stop(true);
    },
  });
  return state;
}

function serve(
  handler: (req: Request, url: URL) => Response | Promise<Response>,
  opts: { hostname?: string; tls?: { cert: string; key: string } } = {},
): TestServer {
  const hits: Hit[] = [];
  const hostname = opts.hostname ?? "127.0.0.1";
  const server = Bun.serve({
    hostname,
    port: 0,
    tls: opts.tls,
    async fetch(req) {
      const url = new URL(req.url);
      hits.push({
        path: url.pathname,
        method: req.method,
        host: req.headers.get("host"),
        authorization: req.headers.get("authorization"),
        body: await req.text(),
      });
      return handler(req, url);
    },
  });
  const port = server.port!;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const s: TestServer = {
    port,
    hits,
    url: (path = "/") => `http${opts.tls ? "s" : ""}://${host}:${port}${path}`,
    stop: () => void server.stop(true),
  };
  servers.push(s);
  return s;
}

// Tests never let the system resolver run: any name that reaches DNS without an explicit answer is a test bug.
const noDns = async (name: string): Promise<string[]> => {
  throw new Error(`unexpected DNS lookup of ${name}`);
};

const base = (extra: Partial<OutboundOptions> = {}): OutboundOptions => ({
  allowPrivateNetworks: true,
  maxBytes: 1_000_000,
  overflow: "error",
  timeoutMs: 5_000,
  resolve: noDns,
  ...extra,
});

async function failure(p: Promise<unknown>): Promise<OutboundError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof OutboundError) return e;
    throw e;
  }
  throw new Error("expected the call to fail");
}

async function expectCode(p: Promise<unknown>, code: OutboundErrorCode): Promise<OutboundError> {
  const e = await failure(p);
  expect({ code: e.code, message: e.message }).toEqual({ code, message: expect.any(String) });
  return e;
}

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("classifyAddress", () => {
  const publicOnes = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "100.63.255.255", // just below CGNAT
    "100.128.0.0", // just above CGNAT
    "172.15.255.255",
    "172.32.0.0",
    "192.167.255.255",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8", // IPv4-mapped public: the socket reaches 8.8.8.8
    "64:ff9b::808:808", // NAT64 of 8.8.8.8
    "2002:808:808::1", // 6to4 of 8.8.8.8
  ];
  test.each(publicOnes)("%s is public", (ip) => {
    expect(classifyAddress(ip)).toEqual({ public: true });
  });

  const refused: [string, string][] = [
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["169.254.1.1", "link-local"],
    ["100.64.0.1", "cgnat"],
    ["100.127.255.255", "cgnat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.8", "reserved"],
    ["192.0.2.1", "documentation"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["[::1]", "loopback"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fd00:ec2::254", "metadata"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["0:0:0:0:0:ffff:7f00:0001", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:0:127.0.0.1", "loopback"], // IPv4-translated
    ["::127.0.0.1", "loopback"], // IPv4-compatible
    ["::7f00:1", "loopback"],
    ["::8.8.8.8", "ipv4-compatible"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b:1::1", "private"],
    ["2002:7f00:1::", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["2002:a9fe:a9fe::", "metadata"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
    ["2001:db8::1", "documentation"],
    ["2001:2::1", "benchmarking"],
    ["2001:10::1", "reserved"],
    ["3fff::1", "documentation"],
    ["100::1", "reserved"],
    ["4000::1", "reserved"],
  ];
  test.each(refused)("%s is refused as %s", (ip, reason) => {
    expect(classifyAddress(ip)).toEqual({ public: false, reason });
  });

  // A URL parser turns these into addresses; classifyAddress itself sees only text and fails closed.
  test.each(["localhost", "127.1", "2130706433", "0177.0.0.1", "0x7f.0.0.1", "1.2.3.256", "", "::ffff::1", "1:2:3:4:5:6:7:8:9"])(
    "%p is not an address, so not public",
    (text) => {
      expect(classifyAddress(text)).toEqual({ public: false, reason: "invalid" });
    },
  );
});

describe("outboundFetch: address rules", () => {
  test("with private networks refused, every loopback spelling is refused and the server never sees a request", async () => {
    const s = serve(() => new Response("secret"));
    const p = s.port;
    const urls = [
      `http://127.0.0.1:${p}/`,
      `http://localhost:${p}/`,
      `http://LOCALHOST.:${p}/`,
      `http://app.localhost:${p}/`,
      `http://2130706433:${p}/`, // decimal
      `http://0177.0.0.1:${p}/`, // octal
      `http://0x7f.0.0.1:${p}/`, // hex
      `http://0x7f000001:${p}/`,
      `http://017700000001:${p}/`,
      `http://127.1:${p}/`, // short form
      `http://127.0.1:${p}/`,
      `http://%31%32%37.0.0.1:${p}/`, // percent-encoded host
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://[::127.0.0.1]:${p}/`,
      `http://[64:ff9b::7f00:1]:${p}/`,
      `http://[2002:7f00:1::]:${p}/`,
      `http://[::1]:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://0:${p}/`,
      `https://127.0.0.1:${p}/`,
      `http://metadata.google.internal/computeMetadata/v1/`,
      `http://metadata.google.internal./computeMetadata/v1/`,
      `http://printer.local/`,
    ];
    for (const url of urls) {
      const e = await failure(outboundFetch(url, base({ allowPrivateNetworks: false })));
      expect([url, e.code]).toEqual([url, "blocked_address"]);
    }
    expect(s.hits).toHaveLength(0);
  });

  test("the same server is reached when private networks are allowed", async () => {
    const s = serve((_req, url) => new Response(`hello ${url.pathname}`));
    const res = await outboundFetch(s.url("/hi?x=1"), base());
    expect(res.status).toBe(200);
    expect(text(res.body)).toBe("hello /hi");
    expect(res).toMatchObject({ truncated: false, url: s.url("/hi?x=1"), address: "127.0.0.1", redirects: 0 });
    expect(res.headers.get("content-type")).toStartWith("text/plain");
    expect(s.hits).toHaveLength(1);
  });

  test("only http and https are fetched, whatever allowPrivateNetworks says", async () => {
    for (const url of ["ftp://127.0.0.1/", "file:///etc/passwd", "gopher://127.0.0.1:70/", "javascript:alert(1)", "data:text/plain,hi", "ws://127.0.0.1/"]) {
      for (const allowPrivateNetworks of [true, false]) {
        const e = await failure(outboundFetch(url, base({ allowPrivateNetworks })));
        expect([url, e.code]).toEqual([url, "scheme"]);
      }
    }
  });

  test("unparsable URLs are invalid_url", async () => {
    for (const url of ["not a url", "http://", "http://127.0.0.1.5/", "http://[::1/", ""]) {
      const e = await failure(outboundFetch(url, base()));
      expect([url, e.code]).toEqual([url, "invalid_url"]);
    }
  });

  test("the connection goes to the resolved address, with the original Host header, resolving once", async () => {
    const s = serve((req) => new Response(`host=${req.headers.get("host")}`));
    const asked: string[] = [];
    const resolve = async (name: string) => {
      asked.push(name);
      return ["127.0.0.1"];
    };
    // shop.example exists in no DNS: the request can only succeed if fetch connects to the address we vetted.
    const res = await outboundFetch(`http://shop.example:${s.port}/p`, base({ resolve }));
    expect(text(res.body)).toBe(`host=shop.example:${s.port}`);
    expect(res).toMatchObject({ status: 200, url: `http://shop.example:${s.port}/p`, address: "127.0.0.1" });
    expect(asked).toEqual(["shop.example"]);
  });

  test("DNS rebinding: a public-looking name that resolves to loopback is refused without contact", async () => {
    const s = serve(() => new Response("internal"));
    const e = await expectCode(
      outboundFetch(`http://rebind.example:${s.port}/`, base({ allowPrivateNetworks: false, resolve: async () => ["127.0.0.1"] })),
      "blocked_address",
    );
    expect(e.message).toContain("loopback");
    await expectCode(
      outboundFetch(`http://rebind.example:${s.port}/`, base({ allowPrivateNetworks: false, resolve: async () => ["::ffff:7f00:1"] })),
      "blocked_address",
    );
    expect(s.hits).toHaveLength(0);
  });

  test("a name with one allowed and one refused address is refused: every address is vetted, not just the first", async () => {
    // Only loopback here, so even a broken check could not send traffic off this machine; the [public, private]
    // form of the same rule is in the checkOutboundUrl tests, which never connect.
    const s = serve(() => new Response("internal"));
    const strict = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"] });
    for (const answer of [["127.0.0.1", "127.0.0.2"], ["127.0.0.1", "::1"], ["127.0.0.1", "::ffff:7f00:2"]]) {
      const e = await expectCode(outboundFetch(`http://mixed.example:${s.port}/`, { ...strict, resolve: async () => answer }), "blocked_address");
      expect(e.message).toContain(answer[1]);
    }
    expect(s.hits).toHaveLength(0);
  });

  test("DNS failures and empty or nonsense answers are dns errors", async () => {
    await expectCode(outboundFetch("http://nowhere.example/", base({ resolve: async () => Promise.reject(new Error("ENOTFOUND")) })), "dns");
    await expectCode(outboundFetch("http://nowhere.example/", base({ resolve: async () => [] })), "dns");
    await expectCode(outboundFetch("http://nowhere.example/", base({ resolve: async () => ["not-an-ip"] })), "dns");
  });

  test("allowAddresses lets an operator reach one internal address and nothing else", async () => {
    const s = serve(() => new Response("ok"));
    const strict = base({ allowPrivateNetworks: false, allowAddresses: ["127.0.0.1"] });
    expect((await outboundFetch(s.url("/"), strict)).status).toBe(200);
    const v6 = serve(() => new Response("v6"), { hostname: "::1" });
    await expectCode(outboundFetch(v6.url("/"), strict), "blocked_address");
    await expectCode(outboundFetch(`http://localhost:${s.port}/`, strict), "blocked_address");
    expect(s.hits).toHaveLength(1);
    expect(v6.hits).toHaveLength(0);
  });

  test("a refused connection is a connect error", async () => {
    const s = serve(() => new Response("x"));
    const url = s.url("/");
    s.stop();
    await expectCode(outboundFetch(url, base()), "connect");
  });
});

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

describe("decodeDataUrl", () => {
  const cap = { maxBytes: 10, overflow: "error" as const };

  test("base64 and percent-encoded payloads", () => {
    expect(decodeDataUrl("data:image/png;base64,AAEC/w==", cap)).toEqual({
      bytes: new Uint8Array([0, 1, 2, 255]),
      contentType: "image/png",
      truncated: false,
    });
    expect(decodeDataUrl("DATA:;BASE64, AAEC /w", cap).bytes).toEqual(new Uint8Array([0, 1, 2, 255]));
    expect(decodeDataUrl("data:,a%20b%FF", cap)).toEqual({
      bytes: new Uint8Array([97, 32, 98, 255]),
      contentType: "text/plain;charset=US-ASCII",
      truncated: false,
    });
    expect(decodeDataUrl("data:text/plain;charset=utf-8,hi#frag", cap).bytes).toEqual(new TextEncoder().encode("hi"));
  });

  test("the cap: exactly maxBytes passes, one more is too_large or truncated", () => {
    const ten = Buffer.alloc(10, 7).toString("base64");
    const eleven = Buffer.alloc(11, 7).toString("base64");
    expect(decodeDataUrl(`data:image/png;base64,${ten}`, cap).bytes.length).toBe(10);
    expect(() => decodeDataUrl(`data:image/png;base64,${eleven}`, cap)).toThrow(OutboundError);
    expect(() => decodeDataUrl(`data:,${"x".repeat(11)}`, cap)).toThrow(/more than the 10/);
    const cut = decodeDataUrl(`data:image/png;base64,${Buffer.alloc(100, 7).toString("base64")}`, { maxBytes: 10, overflow: "truncate" });
    expect([cut.bytes, cut.truncated]).toEqual([new Uint8Array(10).fill(7), true]);
  });

  test("malformed data: URLs are invalid_url", () => {
    for (const url of ["data:image/png;base64", "data:image/png;base64,@@@@", "data:image/png;base64,A"]) {
      const e = (() => {
        try {
          decodeDataUrl(url, cap);
        } catch (err) {
          return err as OutboundError;
        }
      })();
      expect([url, e?.code]).toEqual([url, "invalid_url"]);
    }
  });
});

// checkOutboundUrl runs the same vetting as every fetch hop but never connects, so addresses off this machine
// (public ones, cloud metadata) are safe to use here.
describe("checkOutboundUrl", () => {
  const answers: Record<string, string[]> = {
    "hooks.example": ["93.184.215.14", "2606:4700:4700::1111"],
    "mixed.example": ["93.184.215.14", "10.0.0.7"],
    "mixed6.example": ["2606:4700:4700::1111", "fd00::1"],
    "internal.example": ["10.0.0.7"],
  };
  const strict = {
    allowPrivateNetworks: false,
    resolve: async (name: string) => answers[name] ?? Promise.reject(new Error("ENOTFOUND")),
  };
  const blocked = "points to a private, local or reserved network address, which is not allowed";

  test("a resolver that never answers is a 422 after timeoutMs, not a hang", async () => {
    const e = await checkOutboundUrl("https://stuck.example/", { ...strict, timeoutMs: 100, resolve: () => new Promise(() => {}) }).catch((err) => err);
    expect([e.status, e.toJSON().message]).toEqual([422, "url: has a host name that could not be resolved"]);
  });

  test("passes a public URL without fetching it", async () => {
    expect(await checkOutboundUrl("https://hooks.example/in", strict)).toBeUndefined();
  });

  test("refuses with the catalogue's 422 naming the field", async () => {
    const cases: [string, string][] = [
      ["http://internal.example/in", blocked],
      ["http://mixed.example/in", blocked],
      ["http://mixed6.example/in", blocked],
      ["http://127.0.0.1/in", blocked],
      ["http://169.254.169.254/latest/meta-data/", blocked],
      ["http://0xA9.0xFE.0xA9.0xFE/latest/meta-data/", blocked],
      ["http://2852039166/latest/meta-data/", blocked],
      ["http://[::ffff:a9fe:a9fe]/", blocked],
      ["http://metadata.google.internal/computeMetadata/v1/", blocked],
      ["http://[fd00:ec2::254]/latest/meta-data/", blocked],
      ["http://nowhere.example/in", "has a host name that could not be resolved"],
      ["ftp://hooks.example/in", "must be an http or https URL"],
      ["hooks.example/in", "is not a valid URL"],
    ];
    for (const [url, message] of cases) {
      const e = await checkOutboundUrl(url, { ...strict, field: "url" }).catch((err) => err);
      expect(e).toBeInstanceOf(ApiError);
      expect([e.status, e.toJSON()]).toEqual([
        422,
        { error: "Validation failed", code: "validation_failed", message: `url: ${message}`, details: [{ field: "url", message }] },
      ]);
    }
  });
});
