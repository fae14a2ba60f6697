// bench:http — authenticated GET /v1/products (an account with 5 products) under wrk, beside a bare Elysia
// hello-world measured in the same run; prints req/s, p50/p99 and the ratio to the bare server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { freePort, waitFor, wrk } from "./util";

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 64;
const root = join(import.meta.dir, "..");
const bun = process.execPath;

async function bare(jsonFile?: string) {
  const port = await freePort();
  const args = [bun, "run", join(import.meta.dir, "bare.ts"), String(port), ...(jsonFile ? [jsonFile] : [])];
  const proc = Bun.spawn(args, { stdout: "ignore", stderr: "inherit" });
  try {
    await waitFor(`http://127.0.0.1:${port}/`);
    wrk(`http://127.0.0.1:${port}/`, { seconds: 2, connections }); // warm-up
    return wrk(`http://127.0.0.1:${port}/`, { seconds, connections });
  } finally {
    proc.kill();
    await proc.exited;
  }
}

async function vitrin() {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-bench-"));
  const port = await freePort();
  const admin = "bench-admin-token-0123456789";
  const proc = Bun.spawn([bun, "run", join(root, "src/main.ts"), "serve"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      VITRIN_DATA_DIR: dir,
      VITRIN_PORT: String(port),
      VITRIN_HOST: "127.0.0.1",
      VITRIN_ADMIN_TOKEN: admin,
      VITRIN_RATE_LIMIT: "0",
      VITRIN_LOG_LEVEL: process.env.VITRIN_LOG_LEVEL ?? "info",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/readyz`);
    const created = (await (
      await fetch(`${base}/v1/admin/accounts`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "bench" }),
      })
    ).json()) as { token: string };
    const token = created.token as string;
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#c0392b" } }).png().toBuffer();
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${base}/v1/products`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `Product ${i}`, description: "A product", image_url: `data:image/png;base64,${png.toString("base64")}`, dekupe: false }),
      });
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
    const headers = { authorization: `Bearer ${token}` };
    await Bun.write(listFile, await (await fetch(`${base}/v1/products`, { headers })).text());
    wrk(`${base}/v1/products`, { seconds: 2, connections, headers }); // warm-up
    return wrk(`${base}/v1/products`, { seconds, connections, headers });
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const listFile = join(mkdtempSync(join(tmpdir(), "vitrin-bench-")), "list.json");
const base = await bare();
const ours = await vitrin();
const sameBody = await bare(listFile);
const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
console.log(`\nbench:http — wrk, 1 thread, ${connections} connections, ${seconds} s each, loopback`);
console.log("| server | req/s | p50 ms | p99 ms | errors |");
console.log("|---|---|---|---|---|");
console.log(`| bare Elysia hello-world | ${fmt(base.rps)} | ${fmt(base.p50ms, 2)} | ${fmt(base.p99ms, 2)} | ${base.errors} |`);
console.log(`| bare Elysia, same JSON body as vitrin (${fmt(Bun.file(listFile).size)} bytes) | ${fmt(sameBody.rps)} | ${fmt(sameBody.p50ms, 2)} | ${fmt(sameBody.p99ms, 2)} | ${sameBody.errors} |`);
console.log(`| vitrin GET /v1/products (5 products, auth) | ${fmt(ours.rps)} | ${fmt(ours.p50ms, 2)} | ${fmt(ours.p99ms, 2)} | ${ours.errors} |`);
console.log(`ratio vitrin / bare hello-world: ${(ours.rps / base.rps).toFixed(2)} (target ≥ 0.50)`);
console.log(`ratio vitrin / bare same body:   ${(ours.rps / sameBody.rps).toFixed(2)}`);
