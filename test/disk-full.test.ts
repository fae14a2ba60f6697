// A full disk (issue 18, point 7b), on a real tmpfs filled to the last byte: requests fail with 507 in the catalogue's
// shape and leave no partial file; the job engine backs off instead of retrying its round hundreds of times a second,
// and logs it sparingly. Needs root to mount the tmpfs (CI runs as root); skipped elsewhere, saying why.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import sharp from "sharp";
import { memoryLogger } from "../src/kernel";
import { openDatabase, type Db } from "../src/db";
import { ManualClock, systemClock, type Clock } from "../src/kernel";
import { JobEngine } from "../src/jobs";
import { ROUND_BACKOFF_MAX_MS, ROUND_FAILURE_LOG_EVERY_MS } from "../src/jobs/round-backoff";
import { ADMIN_TOKEN, onPostgres, startService, type TestService } from "./helpers";
import { mountSmallDisk, smallDiskUnavailable, type SmallDisk } from "./support/small-disk";

const unavailable = smallDiskUnavailable();
if (unavailable) console.warn(`disk-full.test.ts skipped: ${unavailable}`);

let disk: SmallDisk | undefined;
let t: TestService | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await t?.close();
  t = undefined;
  disk?.unmount();
  disk = undefined;
});

/** Random pixels barely compress: a PNG of about 200 KB, more than the little room the tests leave. */
async function noisyPng(): Promise<Uint8Array> {
  const raw = crypto.getRandomValues(new Uint8Array(256 * 256 * 3));
  return new Uint8Array(await sharp(Buffer.from(raw), { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer());
}

/** Moves every committed page into the database file and empties the WAL, so the next commit must grow it again. */
function emptyWal(path: string): void {
  const c = new Database(path);
  c.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  c.close();
}

describe.skipIf(unavailable !== null)("requests on a full disk", () => {
  test("an upload is a 507 with Retry-After, leaves no partial file, and works once space is freed", async () => {
    disk = mountSmallDisk(8 * 1024);
    // The files go to this small disk only with local storage (the S3 run would put them in its bucket).
    t = await startService({ VITRIN_DATA_DIR: disk.dir, VITRIN_STORAGE: "local" });
    const a = await t.newAccount();
    const png = await noisyPng();
    const body = { name: "Noise", image_url: `data:image/png;base64,${Buffer.from(png).toString("base64")}`, dekupe: false };
    disk.fill(32 * 1024);

    const res = await t.json("POST", "/v1/products", { token: a.token, body });
    expect(res.status).toBe(507);
    expect(res.body).toEqual({ error: "Insufficient storage", code: "insufficient_storage", message: expect.stringContaining("disk space"), retry_after: 60 });
    expect(res.headers.get("retry-after")).toBe("60");
    // Not a byte of the image, neither under its name nor as a temporary file beside it.
    expect([...new Bun.Glob("**").scanSync({ cwd: join(disk.dir, "files"), dot: true })]).toEqual([]);
    expect((await t.json("GET", "/v1/products", { token: a.token })).body.data).toEqual([]);

    disk.free();
    expect((await t.json("POST", "/v1/products", { token: a.token, body })).status).toBe(201);
  });

  test.skipIf(onPostgres)("a database write that cannot grow the WAL is a 507, not a 500", async () => {
    disk = mountSmallDisk(8 * 1024);
    t = await startService({ VITRIN_DATA_DIR: disk.dir });
    const a = await t.newAccount({ credits: 1 });
    emptyWal(join(disk.dir, "vitrin.db"));
    disk.fill();

    const res = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 5 } });
    expect(res.status).toBe(507);
    expect(res.body.error).toBe("Insufficient storage");
    disk.free();
    expect((await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 5 } })).status).toBe(201);
    expect((await t.json("GET", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN })).body.credits).toBe(6);
  });
});

/** A job engine on a SQLite database on the small disk, with `count` jobs queued, then the disk filled. */
async function engineOnFullDisk(clock: Clock, count: number) {
  disk = mountSmallDisk(4 * 1024);
  const path = join(disk.dir, "jobs.db");
  const seed = openDatabase(`sqlite:${path}`);
  await seed.migrate();
  const logger = memoryLogger("debug");
  const seeder = new JobEngine({ db: seed, clock, logger }).register("noop", () => {});
  await seed.tx((tx) => seeder.enqueueMany(tx, Array.from({ length: count }, (_, i) => ({ kind: "noop", payload: { i } }))));
  await seed.close();

  const db: Db = openDatabase(`sqlite:${path}`);
  cleanups.push(() => db.close());
  let ran = 0;
  const engine = new JobEngine({ db, clock, logger, maintenanceMs: 3_600_000 }).register("noop", () => void ran++, { concurrency: 10 });
  emptyWal(path);
  disk.fill();
  return { engine, logger, db, ran: () => ran };
}

describe.skipIf(unavailable !== null || onPostgres)("the job engine on a full disk", () => {
  test("failed rounds back off exponentially (capped) on the engine's clock, logged once a minute, until the disk has room", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 22, 12));
    const { engine, logger, ran } = await engineOnFullDisk(clock, 5);
    const roundLogs = () => logger.records.filter((r) => String(r.msg).startsWith("job round"));

    expect(await engine.tick()).toBe(0);
    expect(engine.roundBackoff.failures).toBe(1);
    let delay = 100;
    for (let n = 1; n <= 12; n++) {
      // Not yet: the round is not even tried.
      clock.advance(delay - 1);
      expect(await engine.tick()).toBe(0);
      expect(engine.roundBackoff.failures).toBe(n);
      clock.advance(1);
      expect(await engine.tick()).toBe(0);
      expect(engine.roundBackoff.failures).toBe(n + 1);
      delay = Math.min(delay * 2, ROUND_BACKOFF_MAX_MS);
    }
    expect(engine.roundBackoff.waitMs()).toBe(ROUND_BACKOFF_MAX_MS);
    // 13 failures over ~4 minutes of the clock: the first line, then one a minute with the count since.
    const lines = roundLogs();
    expect(lines.length).toBeLessThanOrEqual(2 + Math.ceil((clock.now() - Date.UTC(2026, 10, 22, 12)) / ROUND_FAILURE_LOG_EVERY_MS));
    expect(lines[0]).toMatchObject({ level: "error", msg: "job round failed; retrying with back-off", failures: 1 });
    expect(lines[0]!.err).toMatchObject({ message: expect.stringContaining("full") });

    disk!.free();
    clock.advance(ROUND_BACKOFF_MAX_MS);
    expect(await engine.tick()).toBe(5);
    await engine.drain();
    expect(ran()).toBe(5);
    expect(engine.roundBackoff.failures).toBe(0);
    expect(roundLogs().at(-1)).toMatchObject({ level: "info", msg: "job rounds recovered", failures: 13 });
  });

  test("a running engine does not spin: a second of a full disk costs a handful of rounds and at most two log lines", async () => {
    const { engine, logger } = await engineOnFullDisk(systemClock, 5);
    const cpuBefore = process.cpuUsage();
    engine.start();
    cleanups.push(() => engine.stop({ deadlineMs: 0 }).then(() => undefined));
    await Bun.sleep(1000);
    const cpu = process.cpuUsage(cpuBefore);
    // 100 + 200 + 400 ms of back-off fit in a second: four tries (hundreds without the back-off).
    expect(engine.roundBackoff.failures).toBeGreaterThanOrEqual(2);
    expect(engine.roundBackoff.failures).toBeLessThanOrEqual(5);
    expect(logger.records.filter((r) => String(r.msg).startsWith("job round")).length).toBeLessThanOrEqual(2);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(500);
  });
});
