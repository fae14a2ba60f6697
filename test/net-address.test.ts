// Safe outbound HTTP against real local servers: which addresses may be reached (by IP, by name, pinned DNS), data: URLs and URL checks.
import { afterEach, describe, expect, test } from "bun:test";
import { ApiError } from "../src/kernel";
import { checkOutboundUrl, classifyAddress, decodeDataUrl, OutboundError, outboundFetch } from "../src/net";
import { serve, base, failure, expectCode, text, stopServers } from "./support/net-servers";

afterEach(stopServers);

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
  const blocked = "points to a private, local or reserved network address, which is not allowed (the server's operator can allow such addresses: VITRIN_WEBHOOK_ALLOW_HOSTS for these hosts, or VITRIN_ALLOW_PRIVATE_NETWORKS)";

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
