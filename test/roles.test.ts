// Instance roles over real processes and sockets: an API-only `serve --no-worker` and a jobs-only `worker` sharing
// one database; the API enqueues, the worker does the work, and each answers only what its role serves.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv, createPostgresDatabase, freePort, onPostgres, productPhoto, startImageHost, tempDir, type ImageHost } from "./helpers";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const ADMIN = "roles-admin-token-0123456789";

let dir = "";
let images: ImageHost;
const procs: Subprocess[] = [];
/** In the PostgreSQL run both instances share a fresh database; otherwise one SQLite file. */
let database: { url: string; drop(): Promise<void> } | null = null;

function start(args: string[], port: number, extra: Record<string, string> = {}): string {
  const proc = Bun.spawn([process.execPath, "run", MAIN, ...args], {
    env: childEnv(dir, port, {
      VITRIN_ADMIN_TOKEN: ADMIN,
      VITRIN_POLL_MS: "50",
      ...(database ? { VITRIN_DATABASE_URL: database.url } : {}),
      ...extra,
    }),
    stdout: "ignore",
    stderr: "inherit",
  });
  procs.push(proc);
  return `http://127.0.0.1:${port}`;
}

async function ready(base: string) {
  for (let i = 0; i < 300; i++) {
    const res = await fetch(`${base}/readyz`).catch(() => null);
    if (res?.status === 200) return;
    await Bun.sleep(50);
  }
  throw new Error(`${base} never became ready`);
}

let api = "";
let worker = "";

beforeAll(async () => {
  dir = tempDir("vitrin-roles-");
  if (onPostgres) database = await createPostgresDatabase();
  images = startImageHost({ "/p.png": { body: await productPhoto("png"), type: "image/png" } });
  api = start(["serve", "--no-worker"], freePort());
  await ready(api);
  worker = start(["worker"], freePort());
  await ready(worker);
}, 60_000);

afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  images?.close();
  await Promise.all(procs.map((p) => p.exited));
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("instance roles", () => {
  test("the worker answers /healthz, /readyz and /metrics, and nothing of the API", async () => {
    expect((await fetch(`${worker}/healthz`)).status).toBe(200);
    expect((await fetch(`${worker}/metrics`)).status).toBe(200);
    const res = await fetch(`${worker}/v1/products`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toContain("worker instance");
  });

  test("work enqueued by the API-only instance is done by the worker", async () => {
    const created = await fetch(`${api}/v1/admin/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ credits: 1 }),
    });
    const { token } = (await created.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const product = (await (
      await fetch(`${api}/v1/products`, { method: "POST", headers: auth, body: JSON.stringify({ name: "Disc", image_url: images.url("/p.png") }) })
    ).json()) as { id: string; dekupe: { status: string } };
    expect(product.dekupe.status).toBe("processing");
    let status = "processing";
    for (let i = 0; i < 200 && status === "processing"; i++) {
      await Bun.sleep(50);
      status = ((await (await fetch(`${api}/v1/products/${product.id}`, { headers: auth })).json()) as { dekupe: { status: string } }).dekupe.status;
    }
    expect(status).toBe("ready");
  }, 30_000);

  test("an API-only instance with the ISNet plugin neither assembles its model nor counts it against readiness", async () => {
    const modelDir = join(dir, "api-only-models");
    const base = start(["serve", "--no-worker"], freePort(), { VITRIN_BACKGROUND_REMOVAL: "isnet", VITRIN_MODEL_DIR: modelDir, VITRIN_DATA_DIR: join(dir, "api-only") });
    await ready(base);
    const { checks } = (await (await fetch(`${base}/readyz`)).json()) as { checks: Record<string, { ok: boolean; detail?: string }> };
    expect(checks["background-removal-isnet"]).toEqual({ ok: true, detail: "not used here: this instance runs no jobs (cut-outs run on the workers)" });
    expect(existsSync(modelDir)).toBe(false);
    const proc = procs.pop()!;
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  }, 30_000);

  test("both exit 0 on SIGTERM", async () => {
    for (const p of procs) p.kill("SIGTERM");
    expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0]);
  }, 30_000);
});
