// The compiled executable, as a self-hoster meets it: built with scripts/build.ts, copied alone into an empty folder
// (plus a plugins/ and a templates/ folder beside it), then used through its CLI and its HTTP API over a real socket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { signatureHeader } from "../examples/plugins/payment-sandbox";
import { FONT_FILES } from "../plugins/renderer-ffmpeg/fonts";
import { compiledBinary } from "./compiled-binary";
import { createPostgresDatabase, freePort, onPostgres, productPhoto, startImageHost, tempDir, type ImageHost } from "./helpers";

const ROOT = join(import.meta.dir, "..");
const SECRET = "sandbox-secret-0123456789";
const ADMIN = "binary-admin-token-0123456789";

let work = "";
/** The binary's $TMPDIR, empty at first as on a fresh host (kept out of `work`, which holds only what a self-hoster puts there). */
let tmp = "";
let exe = "";
let server: Subprocess<"ignore", "pipe", "pipe"> | null = null;
let base = "";
let images: ImageHost;
const logLines: string[] = [];
/** In the PostgreSQL run, the binary is pointed at a fresh database of its own. */
let database: { url: string; drop(): Promise<void> } | null = null;

/** The settings a self-hoster would pass; nothing leaks in from the test runner's environment. */
function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: work,
    TMPDIR: tmp,
    VITRIN_NATIVE_DIR: join(work, "native-cache"),
    VITRIN_LOG_LEVEL: "info",
    VITRIN_PLUGIN_SANDBOX_SECRET: SECRET,
    ...(database ? { VITRIN_DATABASE_URL: database.url } : {}),
    ...extra,
  };
}

function cli(...args: string[]) {
  const out = Bun.spawnSync([exe, ...args], { cwd: work, env: env(), stdout: "pipe", stderr: "pipe" });
  return { code: out.exitCode, stdout: out.stdout.toString(), stderr: out.stderr.toString() };
}

async function readLines(stream: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      logLines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  }
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined> | T | null | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last log lines:\n${logLines.slice(-10).join("\n")}`);
    await Bun.sleep(100);
  }
}

async function api(method: string, path: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

let token = "";

beforeAll(async () => {
  work = tempDir("vitrin-binary-");
  if (onPostgres) database = await createPostgresDatabase();
  exe = join(work, "vitrin");
  // Built by scripts/build.ts once per test run (test/compiled-binary.ts), copied here alone as a self-hoster has it.
  copyFileSync(await compiledBinary(), exe);
  // What sits beside the binary: a plugin folder (the repository's example) and a template folder.
  cpSync(join(ROOT, "examples", "plugins", "payment-sandbox"), join(work, "plugins", "payment-sandbox"), { recursive: true });
  mkdirSync(join(work, "templates"));
  tmp = tempDir("vitrin-binary-tmp-");
  writeFileSync(
    join(work, "templates", "plain-square.js"),
    `export default ({ defineTemplate, t }) => defineTemplate({
      meta: { id: "plain-square", name: "Plain square", description: "A dropped-in template", aspect: "1:1", duration: 2, credits: 1 },
      prompt: t.Object({ headline: t.Optional(t.String({ maxLength: 40 })) }),
      async build(ctx) {
        return { background: await ctx.svg('<rect width="1080" height="1080" fill="#204060"/>', 1080, 1080), layers: [] };
      },
    });`,
  );
  images = startImageHost({ "/photo.jpg": { body: await productPhoto("jpeg", 800, 600), type: "image/jpeg" } });
}, 180_000);

afterAll(async () => {
  server?.kill("SIGKILL");
  await server?.exited;
  images?.close();
  await database?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("the compiled binary", () => {
  test("is one executable file", () => {
    expect(statSync(exe).mode & 0o111).not.toBe(0);
    expect(readdirSync(work).sort()).toEqual(["plugins", "templates", "vitrin"]);
  });

  test("runs the CLI from an empty folder: migrate, then an account with a token as JSON", () => {
    const migrate = cli("migrate");
    expect(migrate.code).toBe(0);
    const created = cli("accounts", "create", "--name", "Shop", "--credits", "5", "--json");
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.account).toMatchObject({ object: "account", name: "Shop", credits: 5 });
    expect(out.token).toMatch(/^vt_/);
    token = out.token;
    expect(existsSync(join(work, "data", "vitrin.db"))).toBe(!database);
    // Native libraries load on first use: account commands never need them.
    expect(existsSync(join(work, "native-cache"))).toBe(false);
  });

  test("serves: ready on /readyz with the bundled model, the folder plugin and the renderer", async () => {
    const port = freePort();
    server = Bun.spawn([exe, "serve"], {
      cwd: work,
      env: env({ VITRIN_PORT: String(port), VITRIN_HOST: "127.0.0.1", VITRIN_ADMIN_TOKEN: ADMIN, VITRIN_ALLOW_PRIVATE_NETWORKS: "true", VITRIN_PAYMENT: "sandbox" }),
      stdout: "pipe",
      stderr: "pipe",
    });
    void readLines(server.stdout);
    void readLines(server.stderr);
    const listening = await until("the listening line", () => logLines.map((l) => JSON.parse(l.startsWith("{") ? l : "{}")).find((r) => r.msg === "listening"));
    base = listening.url as string;
    const ready = await until("ready", async () => {
      const res = await fetch(`${base}/readyz`).catch(() => null);
      return res?.status === 200 ? ((await res.json()) as { checks: Record<string, { ok: boolean }> }) : null;
    });
    expect(ready.checks["background-removal-isnet"].ok).toBe(true);
    expect(ready.checks["payment-sandbox"]).toEqual({ ok: true });
    expect(ready.checks["renderer-ffmpeg"].ok).toBe(true);
  }, 90_000);

  test("serve with a VITRIN_NATIVE_DIR it cannot write stops at once with exit 2, naming the setting", () => {
    // Under the executable itself: no user, root included, can make a folder there.
    const out = Bun.spawnSync([exe, "serve", "--port", String(freePort())], { cwd: work, env: env({ VITRIN_NATIVE_DIR: join(exe, "native") }), stdout: "pipe", stderr: "pipe", timeout: 30_000 });
    expect(out.exitCode).toBe(2);
    expect(out.stderr.toString()).toContain("configuration error: VITRIN_NATIVE_DIR: the native libraries are unpacked to");
  });

  test("`vitrin health` answers for the container health check", () => {
    const port = new URL(base).port;
    const ok = Bun.spawnSync([exe, "health", "--json"], { cwd: work, env: env({ VITRIN_PORT: port, VITRIN_HOST: "127.0.0.1" }), stdout: "pipe" });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout.toString()).status).toBe(200);
    const down = Bun.spawnSync([exe, "health"], { cwd: work, env: env({ VITRIN_PORT: "1", VITRIN_HOST: "127.0.0.1" }), stdout: "pipe" });
    expect(down.exitCode).toBe(1);
  });

  test("serves the docs page and its assets from inside the binary", async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    const script = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(500_000);
    expect((await api("GET", "/openapi.json", null)).body.paths["/v1/videos"]).toBeDefined();
  });

  test("serves the Studio it was built with: pages answer index.html, and the assets it names come gzipped and immutable", async () => {
    expect((await fetch(`${base}/products/prod_x`)).status).toBe(200);
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/studio\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.some((a) => a.endsWith(".js"))).toBe(true);
    for (const asset of assets) {
      const res = await fetch(`${base}${asset}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      if (asset.endsWith(".js")) expect(res.headers.get("content-encoding")).toBe("gzip");
    }
  });

  test("offers the built-in templates and the one dropped into templates/", async () => {
    const list = await api("GET", "/v1/templates", token);
    const ids = list.body.data.map((t: { id: string }) => t.id);
    expect(ids).toContain("spotlight");
    expect(ids).toContain("plain-square");
    expect(ids.length).toBe(7);
  });

  test("cuts a product out with the real model", async () => {
    const created = await api("POST", "/v1/products", token, { name: "Red disc", image_url: images.url("/photo.jpg") });
    expect(created.status).toBe(201);
    const product = await until(
      "dekupe",
      async () => {
        const p = (await api("GET", `/v1/products/${created.body.id}`, token)).body;
        return p.dekupe.status === "ready" || p.dekupe.status === "failed" ? p : null;
      },
      120_000,
    );
    expect(product.dekupe.error).toBeNull();
    expect(product.dekupe.status).toBe("ready");
    const cutout = await fetch(product.dekupe.preview_url);
    expect(cutout.headers.get("content-type")).toBe("image/png");
  }, 150_000);

  test("unpacked its native libraries into VITRIN_NATIVE_DIR once they were needed, keeping node_modules' layout", () => {
    const [build] = readdirSync(join(work, "native-cache"));
    const files = readdirSync(join(work, "native-cache", build), { recursive: true }).map(String);
    expect(files.some((f) => /libvips-cpp\.so/.test(f))).toBe(true);
    expect(files.some((f) => /sharp-.*\.node$/.test(f))).toBe(true);
    expect(files.some((f) => /libonnxruntime\.so/.test(f))).toBe(true);
    expect(files.some((f) => /onnxruntime_binding\.node$/.test(f))).toBe(true);
  });

  test("has its fonts copied out by a child before any render, so the server never reads them", async () => {
    const fonts = join(tmp, `vitrin-fonts-${process.getuid!()}`);
    const copied = () => (existsSync(fonts) ? readdirSync(fonts).filter((f) => f.endsWith(".ttf")) : []);
    await until("the fonts copied out", () => (copied().length === FONT_FILES.length ? true : null));
  });

  test("renders a video with a bundled template and its fonts", async () => {
    const [product] = (await api("GET", "/v1/products", token)).body.data;
    const created = await api("POST", "/v1/videos", token, { product_id: product.id, template_id: "clean-card", aspect_ratio: "1:1", user_prompt: { headline: "Çok güzel" } });
    expect(created.status).toBe(202);
    const video = await until(
      "the render",
      async () => {
        const v = (await api("GET", `/v1/videos/${created.body.id}`, token)).body;
        return v.status === "completed" || v.status === "failed" ? v : null;
      },
      150_000,
    );
    expect(video.error).toBeNull();
    expect(video).toMatchObject({ status: "completed", aspect_ratio: "1:1", width: 1080, height: 1080, credits_used: 1 });
    const mp4 = new Uint8Array(await (await fetch(video.video_url)).arrayBuffer());
    expect(new TextDecoder().decode(mp4.slice(4, 8))).toBe("ftyp");
  }, 180_000);

  test("steers a cut-out with a hint: OpenCV's wasm, inline in the bundle, loads in the binary", async () => {
    const [product] = (await api("GET", "/v1/products", token)).body.data;
    expect((await api("POST", `/v1/products/${product.id}/dekupe/retry`, token, { hint: { point: { x: 400, y: 300 } } })).status).toBe(202);
    const settled = await until(
      "the hinted retry",
      async () => {
        const d = (await api("GET", `/v1/products/${product.id}/dekupe`, token)).body;
        return d.status === "ready" || d.status === "failed" ? d : null;
      },
      120_000,
    );
    expect(settled.error).toBeNull();
    const attempts = (await api("GET", `/v1/products/${product.id}/dekupe/attempts`, token)).body.data;
    expect(attempts.at(-1)).toMatchObject({ status: "ready", hint: { point: { x: 400, y: 300 } } });
    expect(attempts.at(-1).method).toStartWith("hint: point");
    expect(settled.timings.grabcut_ms).toBeGreaterThanOrEqual(0);
  }, 150_000);

  test("takes a top-up through the plugin loaded from plugins/", async () => {
    const top = await api("POST", "/v1/balance/top-up", token, { amount: 1000, currency: "usd" });
    expect(top.status).toBe(201);
    expect(top.body.platform).toBe("sandbox");
    const raw = JSON.stringify({ id: "evt_bin_1", type: "payment.succeeded", data: { reference: `sbx_${top.body.id}` } });
    const hook = await api("POST", "/v1/payments/sandbox/webhook", null, raw, {
      "content-type": "application/json",
      "sandbox-signature": await signatureHeader(SECRET, raw),
    });
    expect(hook.status).toBe(200);
    expect((await api("GET", `/v1/balance/top-ups/${top.body.id}`, token)).body.status).toBe("paid");
  });

  test("exits 0 on SIGTERM after a graceful shutdown", async () => {
    server!.kill("SIGTERM");
    expect(await server!.exited).toBe(0);
    expect(logLines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    server = null;
  }, 30_000);
});
