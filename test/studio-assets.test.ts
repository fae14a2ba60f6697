// Serving the Studio: index.html for exactly the app's pages (GET and HEAD), hashed assets cached for a year, ETag and
// 304, gzip when accepted, the strict CSP and security headers; every other path keeps its JSON answer, but for a
// browser's navigation to an unknown address outside the API, which gets the Studio (404) and its not-found page. A small
// stand-in set of files keeps most tests quick; the last one serves the real build of studio/.
import { afterEach, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { STUDIO_CSP, studioCsp, type StudioFile } from "../src/studio";
import { startService, type TestService } from "./helpers";
import { startS3Server } from "./support/s3";

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const encode = (text: string) => new TextEncoder().encode(text);
const HTML = `<!doctype html><html><head><script type="module" src="/studio/assets/app-1a2b3c.js"></script></head><body>${"<div></div>".repeat(200)}</body></html>`;
const JS = `console.log(${JSON.stringify("studio ".repeat(100))});`;

async function standIn(): Promise<StudioFile[]> {
  return [
    { path: "/index.html", body: encode(HTML), type: "text/html; charset=utf-8", immutable: false },
    { path: "/studio/assets/app-1a2b3c.js", body: encode(JS), type: "text/javascript; charset=utf-8", immutable: true },
  ];
}

// Files on local disk are served by the service itself (S3 runs have a test of their own below).
const LOCAL = { VITRIN_STORAGE: "local" };

const PAGES = ["/", "/sign-in", "/products", "/products/prod_abc", "/videos", "/videos/new", "/videos/vid_1", "/balance", "/developers", "/admin", "/admin/accounts", "/admin/accounts/acct_1", "/admin/jobs"];

test("every Studio page answers index.html with the CSP, nosniff, same-origin referrer and no-cache", async () => {
  t = await startService(LOCAL, { studioFiles: standIn });
  for (const page of PAGES) {
    const res = await t.call("GET", page);
    expect(res.status, page).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(STUDIO_CSP);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toBe(HTML);
  }
  expect(STUDIO_CSP).toContain("script-src 'self'");
  expect(STUDIO_CSP).toContain("frame-ancestors 'none'");
});

test("other paths keep their JSON 404 (or their own answer): /v1/nope, /nope, deeper pages, POST", async () => {
  t = await startService(LOCAL, { studioFiles: standIn });
  for (const path of ["/v1/nope", "/nope", "/products/abc/extra", "/admin/nope", "/studio/assets/missing.js", "/studio"]) {
    const res = await t.json("GET", path);
    expect(res.status, path).toBe(404);
    expect(res.headers.get("content-type"), path).toContain("application/json");
    expect(res.body.code, path).toBe("not_found");
  }
  expect((await t.json("POST", "/products", { body: {} })).status).toBe(404);
  expect((await t.json("GET", "/healthz")).body).toEqual({ status: "ok" });
  expect((await t.call("GET", "/openapi.json")).headers.get("content-type")).toContain("application/json");
  expect((await t.call("GET", "/docs")).headers.get("content-security-policy")).toBeNull();
});

test("a browser's navigation to an unknown address outside the API gets the Studio with status 404, to show its own not-found page", async () => {
  t = await startService({ ...LOCAL, VITRIN_ADMIN_TOKEN: "" }, { studioFiles: standIn });
  const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
  for (const path of ["/nope", "/prodcts", "/products/abc/extra", "/admin/nope", "/foo/bar/baz"]) {
    const res = await t.call("GET", path, { headers: browser });
    expect(res.status, path).toBe(404);
    expect(res.headers.get("content-type"), path).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy"), path).toBe(STUDIO_CSP);
    expect(res.headers.get("etag"), path).toBeNull();
    expect(await res.text(), path).toBe(HTML);
  }
  // The API's own paths keep the API's answer even for a browser; a client asking JSON anywhere gets the JSON 404.
  for (const path of ["/v1/nope", "/files/nope.png", "/docs/nope", "/studio/nope"]) {
    const res = await t.json("GET", path, { headers: browser });
    expect(res.status, path).toBe(404);
    expect(res.body.code, path).toBe("not_found");
  }
  expect((await t.json("GET", "/v1/admin/accounts", { headers: browser })).body.code).toBe("admin_api_disabled");
  const api = await t.json("GET", "/nope", { headers: { accept: "application/json" } });
  expect([api.status, api.body.code]).toEqual([404, "not_found"]);
  // No route stands in the way: the docs page, and a one-segment route such as /healthz, answer as before.
  expect((await t.call("GET", "/docs", { headers: browser })).status).toBe(200);
  expect((await t.call("GET", "/healthz", { headers: browser })).status).toBe(200);
});

test("assets are cached for a year as immutable; a matching If-None-Match gets 304 without a body", async () => {
  t = await startService(LOCAL, { studioFiles: standIn });
  const res = await t.call("GET", "/studio/assets/app-1a2b3c.js");
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  expect(res.headers.get("content-security-policy")).toBe(STUDIO_CSP);
  expect(await res.text()).toBe(JS);
  const etag = res.headers.get("etag")!;
  expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
  for (const given of [etag, `W/${etag}`, `"other", ${etag}`]) {
    const again = await t.call("GET", "/studio/assets/app-1a2b3c.js", { headers: { "if-none-match": given } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
  }
  const page = await t.call("GET", "/products");
  const revalidated = await t.call("GET", "/videos", { headers: { "if-none-match": page.headers.get("etag")! } });
  expect(revalidated.status).toBe(304);
  expect((await t.call("GET", "/studio/assets/app-1a2b3c.js", { headers: { "if-none-match": '"stale"' } })).status).toBe(200);
});

test("gzip when the browser accepts it (Vary: Accept-Encoding), plain bytes otherwise; HEAD gives the real length", async () => {
  t = await startService(LOCAL, { studioFiles: standIn });
  const zipped = await t.call("GET", "/studio/assets/app-1a2b3c.js", { headers: { "accept-encoding": "gzip, deflate, br" } });
  expect(zipped.headers.get("content-encoding")).toBe("gzip");
  expect(zipped.headers.get("vary")).toBe("Accept-Encoding");
  const packed = new Uint8Array(await zipped.arrayBuffer());
  expect(packed.length).toBeLessThan(JS.length);
  expect(new TextDecoder().decode(gunzipSync(packed))).toBe(JS);
  const plain = await t.call("GET", "/studio/assets/app-1a2b3c.js");
  expect(plain.headers.get("content-encoding")).toBeNull();
  const head = await t.call("HEAD", "/products/prod_abc", { headers: { "accept-encoding": "gzip" } });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe("");
  expect(Number(head.headers.get("content-length"))).toBe(gunzipInput(HTML));
  expect(head.headers.get("content-security-policy")).toBe(STUDIO_CSP);
  expect((await t.call("HEAD", "/nope")).status).toBe(404);
});

/** The gzipped length of a text as the server packs it (level 9). */
function gunzipInput(text: string): number {
  return Bun.gzipSync(encode(text), { level: 9 }).length;
}

test("run from source, the real Studio is built on the first request: / names hashed assets that are served", async () => {
  t = await startService();
  const res = await t.call("GET", "/");
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).not.toMatch(/<script>(?!<)|\sstyle="/);
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(refs.length).toBeGreaterThan(1);
  for (const ref of refs) {
    expect(ref).toMatch(/^\/studio\/assets\/[\w.-]+-[0-9a-z]+\.\w+$/);
    const asset = await t.call("GET", ref);
    expect(asset.status, ref).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  }
}, 120_000);

test("with files in an S3 bucket, the CSP lets images and videos load from the bucket's origin, and only those", async () => {
  const s3 = await startS3Server();
  try {
    t = await startService(s3.env(await s3.newBucket()), { studioFiles: standIn });
    const csp = (await t.call("GET", "/products")).headers.get("content-security-policy")!;
    expect(csp).toBe(studioCsp([s3.endpoint]));
    expect(csp).toContain(`img-src 'self' ${s3.endpoint} blob: data:;`);
    expect(csp).toContain(`media-src 'self' ${s3.endpoint} blob:;`);
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
  } finally {
    await t?.close();
    t = null;
    await s3.close();
  }
});
