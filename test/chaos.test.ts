// Instances killed mid-work never lose money: (a) an ffmpeg stand-in SIGKILLs the instance rendering a video, the
// instance is restarted each time until the render's attempts are spent, and the video ends failed with one refund;
// (b) twenty SIGKILLs at random moments of the product → dekupe → video flow, and every video still ends completed or
// failed-with-refund, no credit lost or doubled. Real `vitrin serve` processes on SQLite over one data dir.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onPostgres, productPhoto, tempDir } from "./helpers";
import { CHAOS_ADMIN, InstanceRunner, ledgerOf } from "./support/instance";

let runner: InstanceRunner | null = null;
let dir = "";
afterEach(async () => {
  await runner?.kill();
  runner = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await Bun.sleep(100);
  }
}

async function newAccount(r: InstanceRunner, credits: number): Promise<{ id: string; token: string }> {
  const res = await r.call("POST", "/v1/admin/accounts", CHAOS_ADMIN, { credits });
  expect(res?.status).toBe(201);
  return { id: res!.body.account.id, token: res!.body.token };
}

const photoUrl = async () => `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 480, 360)).toString("base64")}`;

// The instances run on SQLite whatever the suite's database; the PostgreSQL run leaves these to the SQLite one
// (test/multi-instance.test.ts kills instances on PostgreSQL).
describe.skipIf(onPostgres)("instances killed mid-render", () => {
  test("a render whose every attempt kills its instance ends failed with exactly one refund", async () => {
    dir = tempDir("vitrin-kill-render-");
    // Answers like ffmpeg for the instance's checks (-version, -encoders), and kills the instance that starts an encode.
    const standIn = join(dir, "bin", "ffmpeg");
    Bun.spawnSync(["mkdir", "-p", join(dir, "bin")]);
    writeFileSync(standIn, '#!/bin/sh\nfor a in "$@"; do case "$a" in -version|-encoders) exec ffmpeg "$@";; esac; done\nkill -9 $PPID\nsleep 30\n');
    chmodSync(standIn, 0o755);
    runner = new InstanceRunner(join(dir, "data"), { VITRIN_FFMPEG_PATH: standIn });
    await runner.start();
    const acct = await newAccount(runner, 10);
    const product = await runner.call("POST", "/v1/products", acct.token, { name: "Lamp", image_url: await photoUrl(), dekupe: false });
    expect(product?.status).toBe(201);
    const video = await runner.call("POST", "/v1/videos", acct.token, { template_id: "spotlight", product_id: product!.body.id, language: "en" });
    expect(video?.status).toBe(202);

    const status = await until(
      "the video to settle",
      async () => {
        if (!runner!.alive()) await runner!.start();
        const v = await runner!.call("GET", `/v1/videos/${video!.body.id}`, acct.token);
        return v && (v.body.status === "failed" || v.body.status === "completed") ? v.body : undefined;
      },
      90_000,
    );
    expect(status.status).toBe("failed");
    expect(status.error.code).toBe("render_failed");
    expect(runner.starts).toBeGreaterThanOrEqual(4); // the first, then one after each of the 3 killed attempts
    const jobs = runner.read((db) => db.query("SELECT status, attempts FROM jobs WHERE kind = 'video.render'").all());
    expect(jobs).toEqual([{ status: "dead", attempts: 3 }]);
    const l = ledgerOf(runner, acct.id);
    expect(l.balance).toBe(10);
    expect(l.sum).toBe(10);
    expect(l.videos).toEqual([{ id: video!.body.id, status: "failed", credits: expect.any(Number), usage: 1, refunds: 1 }]);
  }, 120_000);
});

describe.skipIf(onPostgres)("chaos", () => {
  test("20 SIGKILLs at random moments of product → dekupe → video: every video completed or refunded, ledger exact", async () => {
    dir = tempDir("vitrin-chaos-");
    runner = new InstanceRunner(join(dir, "data"));
    await runner.start();
    const grant = 200;
    const acct = await newAccount(runner, grant);
    const image = await photoUrl();
    const seed = Number(process.env.VITRIN_CHAOS_SEED ?? Date.now() % 100_000);
    let state = seed;
    const random = () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    console.log(`chaos seed ${seed} (VITRIN_CHAOS_SEED=${seed} repeats it)`);
    let products: string[] = [];

    for (let round = 0; round < 20; round++) {
      if (!runner.alive()) await runner.start();
      // Work in flight when the kill lands: a product (with its dekupe) or a video, or both at once.
      const work: Promise<unknown>[] = [];
      if (products.length < 4 || random() < 0.3) {
        work.push(
          runner.call("POST", "/v1/products", acct.token, { name: `Item ${round}`, image_url: image }).then((res) => {
            if (res?.status === 201) products.push(res.body.id);
          }),
        );
      }
      if (products.length > 0) {
        const productId = products[Math.floor(random() * products.length)]!;
        work.push(runner.call("POST", "/v1/videos", acct.token, { template_id: "spotlight", product_id: productId, language: "en" }));
      }
      await Bun.sleep(Math.floor(random() * 2500));
      await runner.kill();
      await Promise.allSettled(work);
      // A product deleted by its limit or never created is simply not used again.
      if (products.length >= 5) products = products.slice(-4);
    }

    await runner.start();
    const settled = await until(
      "every video to settle",
      () => {
        if (!runner!.alive()) return undefined;
        const l = ledgerOf(runner!, acct.id);
        return l.videos.every((v) => v.status === "completed" || v.status === "failed") ? l : undefined;
      },
      240_000,
    ).catch((e) => {
      // What was left unsettled, for whoever reads the failure.
      console.error(JSON.stringify(runner!.read((db) => ({
        videos: db.query("SELECT id, status, progress, error_code FROM videos").all(),
        jobs: db.query("SELECT id, kind, status, attempts, run_at, last_error, payload FROM jobs WHERE status NOT IN ('succeeded')").all(),
        products: db.query("SELECT id, dekupe_status FROM products").all(),
      })), null, 1));
      throw e;
    });
    expect(settled.videos.length).toBeGreaterThan(0);
    for (const v of settled.videos) {
      expect(v.usage).toBe(1);
      expect(v.refunds).toBe(v.status === "failed" ? 1 : 0);
    }
    const spent = settled.videos.filter((v) => v.status === "completed").reduce((s, v) => s + v.credits, 0);
    expect(settled.sum).toBe(settled.balance);
    expect(settled.balance).toBe(grant - spent);
    const stuck = runner.read((db) => db.query("SELECT count(*) AS n FROM products WHERE dekupe_status = 'processing'").get() as { n: number });
    expect(stuck.n).toBe(0);
  }, 420_000);
});
