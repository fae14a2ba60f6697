// Test support: a fresh service per test (own data dir, own database, manual clock), a loopback image host, and
// request helpers. VITRIN_TEST_DATABASE=postgres runs every service on a fresh PostgreSQL database instead of SQLite.
import { SQL } from "bun";
import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { loadConfig } from "../src/config";
import { memoryLogger } from "../src/kernel";
import { ManualClock } from "../src/kernel";
import { createService, type Service, type ServiceOptions } from "../src/service";
import { readPluginSettings } from "../src/plugins";
import { s3Settings } from "../plugins/storage-s3/settings";

export const ADMIN_TOKEN = "admin-token-for-tests-0123456789";
export const BASE = "http://vitrin.test";

export type TestService = {
  service: Service;
  clock: ManualClock;
  dir: string;
  logs: ReturnType<typeof memoryLogger>["records"];
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<Response>;
  json<T = any>(method: string, path: string, opts?: Parameters<TestService["call"]>[2]): Promise<{ status: number; body: T; headers: Headers }>;
  newAccount(input?: { credits?: number; language?: string }): Promise<{ id: string; token: string }>;
  runJobs(): Promise<number>;
  close(): Promise<void>;
};

/** Which database the suite runs on: `VITRIN_TEST_DATABASE=postgres` switches every startService to PostgreSQL. */
export const TEST_DATABASE: "sqlite" | "postgres" = process.env.VITRIN_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";
export const onPostgres = TEST_DATABASE === "postgres";
/** A server where the tests may create and drop databases (trust auth on loopback in CI). */
export const POSTGRES_ADMIN_URL = process.env.VITRIN_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let admin: SQL | null = null;

/**
 * Whether the suites that compare both drivers can reach PostgreSQL. `npm test` on a machine without a server skips
 * their PostgreSQL half (saying so); with VITRIN_TEST_DATABASE=postgres a missing server is an error, not a skip.
 */
export const postgresAvailable: boolean = onPostgres || (await probePostgres());

async function probePostgres(): Promise<boolean> {
  const probe = new SQL({ url: POSTGRES_ADMIN_URL, max: 1, connectionTimeout: 2 });
  try {
    await probe`SELECT 1`;
    return true;
  } catch {
    console.warn(`PostgreSQL at ${POSTGRES_ADMIN_URL} is not reachable: its half of the two-driver suites is skipped`);
    return false;
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/** A brand-new, empty PostgreSQL database for one test; drop() removes it even with connections still open. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  admin ??= new SQL({ url: POSTGRES_ADMIN_URL, max: 2, idleTimeout: 5 });
  const name = `vitrin_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await admin!.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Which storage the suite runs on: `VITRIN_TEST_STORAGE=s3` puts every startService on S3 (an in-process s3rver). */
export const onS3 = process.env.VITRIN_TEST_STORAGE === "s3";
let sharedS3: Promise<import("./support/s3").S3Server> | null = null;

/** One s3rver for the whole test process, started on first use; each service gets a bucket of its own. */
async function s3Env(): Promise<Record<string, string>> {
  sharedS3 ??= import("./support/s3").then((m) => m.startS3Server());
  const s3 = await sharedS3;
  return s3.env(await s3.newBucket());
}

/** The storage key behind a URL the API gave out (`{cdn_url}/<key>` on disk, a presigned bucket URL on S3). */
export function storageKeyOf(url: string): string {
  const path = decodeURIComponent(new URL(url).pathname);
  const at = path.search(/\/(products|videos)\//);
  if (at < 0) throw new Error(`not a stored file's URL: ${url}`);
  return path.slice(at + 1);
}

/** The bytes stored behind a URL the API gave out, read through the service's storage plugin. */
export async function storedBytes(t: TestService, url: string): Promise<Uint8Array | null> {
  const file = await t.service.plugins.storage.get(storageKeyOf(url));
  return file ? new Uint8Array(await file.body.arrayBuffer()) : null;
}

/** Fetches a stored file by the URL the API gave out: through the app for `{cdn_url}` links, from the bucket on S3. */
export function fetchStored(t: TestService, url: string, init?: RequestInit): Promise<Response> {
  const u = new URL(url);
  if (u.origin === new URL(BASE).origin) return t.service.handle(new Request(url, init));
  return fetch(url, init);
}

/** Every stored key under `prefix`, listed from the storage itself (the files folder on disk, the bucket on S3). */
export async function storedKeys(t: TestService, prefix: string): Promise<string[]> {
  const { config } = t.service;
  if (config.storage === "s3") {
    const s3 = readPluginSettings(s3Settings, config);
    const client = new Bun.S3Client({
      endpoint: s3.endpoint!,
      bucket: s3.bucket!,
      region: "us-east-1",
      accessKeyId: s3.accessKeyId!,
      secretAccessKey: s3.secretAccessKey!,
    });
    return ((await client.list({ prefix, maxKeys: 1000 })).contents ?? []).map((o) => o.key).sort();
  }
  const glob = new Bun.Glob(`${prefix}**`);
  return [...glob.scanSync({ cwd: join(t.dir, "files") })].sort();
}

/** A loopback port free right now, for a child process to listen on. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** The environment of a `vitrin` child process on loopback: nothing leaks in from the test runner's own. */
export function childEnv(dir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    VITRIN_DATA_DIR: dir,
    VITRIN_PORT: String(port),
    VITRIN_HOST: "127.0.0.1",
    VITRIN_PUBLIC_URL: `http://127.0.0.1:${port}`,
    VITRIN_ALLOW_PRIVATE_NETWORKS: "true",
    VITRIN_BACKGROUND_REMOVAL: "none",
    VITRIN_LOG_LEVEL: "warn",
    ...extra,
  };
}

export function tempDir(prefix = "vitrin-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * One service and one account for a whole test file: started before its first test, closed after its last. Call it
 * at the file's top level; `shared.t` and `shared.token` are there once the tests run.
 */
export function sharedService(env: Record<string, string> = {}, account: { credits?: number; language?: string } = {}): { t: TestService; token: string } {
  const shared = {} as { t: TestService; token: string };
  beforeAll(async () => {
    shared.t = await startService(env);
    shared.token = (await shared.t.newAccount(account)).token;
  });
  afterAll(() => shared.t?.close());
  return shared;
}

export async function startService(env: Record<string, string> = {}, opts: ServiceOptions = {}): Promise<TestService> {
  const dir = tempDir();
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  const logger = memoryLogger("debug");
  const pg = onPostgres && env.VITRIN_DATABASE_URL === undefined ? await createPostgresDatabase() : null;
  const s3 = onS3 && env.VITRIN_STORAGE === undefined ? await s3Env() : {};
  const config = loadConfig({
    ...(pg ? { VITRIN_DATABASE_URL: pg.url } : {}),
    ...s3,
    VITRIN_DATA_DIR: dir,
    VITRIN_PUBLIC_URL: BASE,
    VITRIN_ADMIN_TOKEN: ADMIN_TOKEN,
    VITRIN_ALLOW_PRIVATE_NETWORKS: "true",
    VITRIN_LOG_LEVEL: "debug",
    VITRIN_RATE_LIMIT: "0",
    // The real model has its own suite (dekupe-isnet.test.ts); elsewhere the pass-through keeps tests fast.
    VITRIN_BACKGROUND_REMOVAL: "none",
    ...env,
  });
  let service: Service;
  try {
    service = await createService(config, { clock, logger, worker: false, env: {}, ...opts });
  } catch (e) {
    await pg?.drop();
    throw e;
  }
  const call: TestService["call"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    return service.handle(new Request(`${BASE}${path}`, { method, headers, body }));
  };
  const t: TestService = {
    service,
    clock,
    dir,
    logs: logger.records,
    call,
    async json(method, path, o) {
      const res = await call(method, path, o);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    async newAccount(input = {}) {
      const res = await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: input });
      if (res.status !== 201) throw new Error(`account create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.account.id, token: res.body.token };
    },
    async runJobs() {
      let total = 0;
      for (let i = 0; i < 100; i++) {
        const claimed = await service.jobs.tick();
        await service.jobs.drain();
        if (claimed === 0) break;
        total += claimed;
      }
      return total;
    },
    async close() {
      try {
        await service.stop();
      } finally {
        await pg?.drop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return t;
}

/** A product-like photo: a coloured disc on a light background, made by sharp from SVG. */
export async function productPhoto(format: "jpeg" | "png" | "webp" = "jpeg", width = 640, height = 480): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#e8e4dc"/>
    <circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#c0392b"/>
  </svg>`;
  const img = sharp(Buffer.from(svg));
  const out = format === "jpeg" ? img.jpeg({ quality: 85 }) : format === "png" ? img.png() : img.webp();
  return new Uint8Array(await out.toBuffer());
}

export type ImageHost = {
  url(path: string): string;
  hits: string[];
  close(): void;
};

/** A real HTTP server on loopback serving the given files (path → bytes and type), counting every request. */
export function startImageHost(
  files: Record<string, { body: Uint8Array | string; type: string; delayMs?: number }>,
): ImageHost {
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      const file = files[path];
      if (!file) return new Response("not found", { status: 404 });
      if (file.delayMs) await Bun.sleep(file.delayMs);
      return new Response(file.body, { headers: { "content-type": file.type } });
    },
  });
  return {
    url: (path) => `http://127.0.0.1:${server.port}${path}`,
    hits,
    close: () => server.stop(true),
  };
}

/** Waits, one event-loop turn at a time (bounded), for work Elysia does after a response is sent. */
export async function eventually(check: () => boolean | Promise<boolean>, turns = 200): Promise<boolean> {
  for (let i = 0; i < turns; i++) {
    if (await check()) return true;
    await new Promise((r) => setImmediate(r));
  }
  return false;
}
