// Backup and restore: a round trip through the real CLI while the service runs (accounts, ledger, products, a rendered
// video and every stored byte come back), and the refusals (damaged archives, newer schema, occupied folders, a
// database in use, PostgreSQL and S3) that leave the target untouched.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { gunzipSync, gzipSync } from "node:zlib";
import * as tar from "tar-stream";
import { BackupError, createBackup, restoreBackup, verifyBackup } from "../src/backup";
import { loadConfig } from "../src/config";
import { ADMIN_TOKEN, fetchStored, POSTGRES_ADMIN_URL, productPhoto, startService, tempDir, type TestService } from "./helpers";

const root = resolve(import.meta.dir, "..");
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A folder removed after the test. */
function scratch(): string {
  const dir = tempDir("vitrin-backup-");
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The settings of a single-host service on `dir`: SQLite and local files, whichever database the suite runs on. */
function local(dir: string): Record<string, string> {
  return { VITRIN_DATA_DIR: dir, VITRIN_DATABASE_URL: `sqlite:${join(dir, "vitrin.db")}`, VITRIN_STORAGE: "local" };
}

async function serviceOn(dir: string): Promise<TestService> {
  const t = await startService(local(dir), { renderScale: 0.25 });
  cleanup.push(() => t.close());
  return t;
}

/** Runs the real CLI (`bun run src/main.ts …`) as a child process. */
async function cli(args: string[], env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, "run", "src/main.ts", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", VITRIN_BACKGROUND_REMOVAL: "none", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

/** Every stored file under a data dir, key → bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const base = join(dir, "files");
  for (const key of new Bun.Glob("**").scanSync({ cwd: base })) out.set(key, readFileSync(join(base, key)));
  return out;
}

/** What a service shows of an account and of the whole install, through the API. */
async function stateOf(t: TestService, token: string) {
  const get = async (path: string, as = token) => {
    const res = await t.json("GET", path, { token: as });
    expect(res.status).toBe(200);
    return res.body;
  };
  return {
    accounts: await get("/v1/admin/accounts", ADMIN_TOKEN),
    balance: await get("/v1/balance"),
    transactions: await get("/v1/balance/transactions"),
    products: await get("/v1/products"),
    videos: await get("/v1/videos"),
  };
}

/** A service with an account, a granted top-up, a product with its image and cut-out, and a completed video. */
async function populated(dir: string) {
  const t = await serviceOn(dir);
  const acct = await t.newAccount({ credits: 20 });
  expect((await t.json("POST", `/v1/admin/accounts/${acct.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 7, description: "welcome" } })).status).toBe(201);
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 800, 600)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Stoneware Mug", image_url: image } });
  expect(product.status).toBe(201);
  await t.runJobs();
  const templates = (await t.json("GET", "/v1/templates", { token: acct.token })).body.data as { id: string; premium: boolean }[];
  const video = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: templates.find((x) => !x.premium)!.id, product_id: product.body.id } });
  expect(video.status).toBe(202);
  await t.runJobs();
  expect((await t.json("GET", `/v1/videos/${video.body.id}`, { token: acct.token })).body.status).toBe("completed");
  return { t, acct };
}

/** A backup of a small service (an account and two stored files, no render), for the refusal tests. */
async function smallBackup(): Promise<string> {
  const dir = scratch();
  const t = await serviceOn(dir);
  const acct = await t.newAccount({ credits: 5 });
  const image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 64, 48)).toString("base64")}`;
  expect((await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Cup", image_url: image } })).status).toBe(201);
  await t.runJobs();
  const archive = join(scratch(), "backup.tar.gz");
  await createBackup(t.service.config, archive);
  return archive;
}

/** Rewrites an archive entry by entry (small archives only): `edit` returns new bytes, or null to drop the entry. */
async function repack(from: string, to: string, edit: (name: string, bytes: Buffer) => Buffer | null, extra: { name: string; bytes: Buffer }[] = []) {
  const entries: { name: string; bytes: Buffer }[] = [];
  const extract = tar.extract();
  const feeding = pipeline(Readable.from([gunzipSync(readFileSync(from))]), extract as unknown as Writable);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const c of entry) chunks.push(c as Buffer);
    const bytes = edit(entry.header.name, Buffer.concat(chunks));
    if (bytes) entries.push({ name: entry.header.name, bytes });
  }
  await feeding;
  const pack = tar.pack();
  for (const e of [...entries, ...extra]) pack.entry({ name: e.name, size: e.bytes.length }, e.bytes);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  writeFileSync(to, gzipSync(Buffer.concat(chunks)));
}

/** Expects the check alone (which writes nothing) and restore into a fresh folder to refuse with `kind`; restore leaves nothing behind, not even a temp folder. */
async function expectRefused(archive: string, kind: string, message: RegExp) {
  const checked = await verifyBackup(archive).catch((e) => e);
  expect(checked).toBeInstanceOf(BackupError);
  expect(checked.kind).toBe(kind);
  expect(checked.message).toMatch(message);
  const parent = scratch();
  const target = join(parent, "restored");
  const error = await restoreBackup(loadConfig(local(target)), archive).then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(BackupError);
  expect(error.kind).toBe(kind);
  expect(error.message).toMatch(message);
  expect(readdirSync(parent)).toEqual([]);
}

describe("vitrin backup and vitrin restore", () => {
  test("a backup taken by the CLI while the service runs restores into a service with the same accounts, ledger, products, videos and files", async () => {
    const dir = scratch();
    const { t, acct } = await populated(dir);
    const before = await stateOf(t, acct.token);
    const filesBefore = filesOf(dir);
    expect([...filesBefore.keys()].some((k) => k.startsWith("videos/") && k.endsWith(".mp4"))).toBe(true);

    const archive = join(scratch(), "vitrin-backup.tar.gz");
    const backup = await cli(["backup", archive], local(dir));
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain("backup written");
    // It holds token hashes and webhook secrets: readable by its owner only, whatever the umask.
    expect(statSync(archive).mode & 0o777).toBe(0o600);

    const target = join(scratch(), "restored");
    const restore = await cli(["restore", archive, "--data-dir", target], {});
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);

    const t2 = await serviceOn(target);
    expect(await stateOf(t2, acct.token)).toEqual(before);
    expect(filesOf(target)).toEqual(filesBefore);
    const video = before.videos.data[0];
    const served = await fetchStored(t2, video.video_url);
    expect(served.status).toBe(200);
    const key = new URL(video.video_url).pathname.replace(/^\/files\//, "");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(new Uint8Array(filesBefore.get(key)!));
    expect((await t2.service.billing.ledgerCheck()).mismatches).toEqual([]);
  }, 180_000);

  test("the snapshot does not wait for a write transaction held open, and holds none of its writes", async () => {
    const dir = scratch();
    const t = await serviceOn(dir);
    const acct = await t.newAccount({ credits: 5 });
    const writer = new Database(join(dir, "vitrin.db"));
    writer.exec("BEGIN IMMEDIATE");
    writer.query("UPDATE accounts SET credits = 999 WHERE id = ?").run(acct.id);
    const archive = join(scratch(), "backup.tar.gz");
    try {
      await createBackup(t.service.config, archive);
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
    }
    const target = join(scratch(), "restored");
    await restoreBackup(loadConfig(local(target)), archive);
    const copy = new Database(join(target, "vitrin.db"), { readonly: true });
    expect(copy.query("SELECT credits FROM accounts WHERE id = ?").get(acct.id)).toEqual({ credits: 5 });
    copy.close();
  });

  test("an upload still being written and a link in the files folder are left out and reported", async () => {
    const dir = scratch();
    const t = await serviceOn(dir);
    mkdirSync(join(dir, "files", "products", "p1"), { recursive: true });
    writeFileSync(join(dir, "files", "products", "p1", "image.jpg"), "done");
    writeFileSync(join(dir, "files", "products", "p1", "image.jpg.tmp-4242-1"), "half");
    symlinkSync("/etc/passwd", join(dir, "files", "products", "p1", "link.jpg"));
    const archive = join(scratch(), "backup.tar.gz");
    const result = await createBackup(t.service.config, archive);
    expect(result.files).toBe(1);
    expect(result.skipped.sort()).toEqual(["products/p1/image.jpg.tmp-4242-1", "products/p1/link.jpg"]);
    expect((await verifyBackup(archive)).entries.map((e) => e.path)).toEqual(["vitrin.db", "files/products/p1/image.jpg"]);
  });

  test("an archive with a flipped byte is refused and nothing is written", async () => {
    const archive = await smallBackup();
    const bytes = readFileSync(archive);
    bytes[Math.floor(bytes.length / 2)] ^= 0xff;
    writeFileSync(archive, bytes);
    await expectRefused(archive, "Damaged archive", /not a readable vitrin backup|checksum/);
  });

  test("a stored file whose bytes no longer match the manifest is refused, named", async () => {
    const archive = await smallBackup();
    let changed = "";
    await repack(archive, archive, (name, bytes) => {
      if (!changed && name.startsWith("files/")) {
        changed = name;
        bytes[bytes.length >> 1] ^= 0x01;
      }
      return bytes;
    });
    expect(changed).not.toBe("");
    await expectRefused(archive, "Damaged archive", new RegExp(`${changed.replaceAll(".", "\\.")} does not match its checksum`));
  });

  test("an archive without its manifest is refused", async () => {
    const archive = await smallBackup();
    await repack(archive, archive, (name, bytes) => (name === "manifest.json" ? null : bytes));
    await expectRefused(archive, "Damaged archive", /has no manifest\.json/);
  });

  test("an entry outside the backup's names (a path escaping the folder) is refused", async () => {
    const archive = await smallBackup();
    await repack(archive, archive, (_name, bytes) => bytes, [{ name: "../escaped.txt", bytes: Buffer.from("x") }]);
    await expectRefused(archive, "Damaged archive", /escaped\.txt.*which no vitrin backup holds/);
  });

  test("an entry the manifest does not list is refused", async () => {
    const archive = await smallBackup();
    await repack(archive, archive, (_name, bytes) => bytes, [{ name: "files/products/extra.png", bytes: Buffer.from("x") }]);
    await expectRefused(archive, "Damaged archive", /files\/products\/extra\.png is in the archive but not in its manifest/);
  });

  test("a database migrated further than this binary knows is refused", async () => {
    const archive = await smallBackup();
    await repack(archive, archive, (name, bytes) => {
      if (name !== "manifest.json") return bytes;
      const m = JSON.parse(bytes.toString());
      m.schema = { dialect: "sqlite", migration: "9999_from_the_future", when: m.schema.when + 1_000_000 };
      return Buffer.from(JSON.stringify(m));
    });
    await expectRefused(archive, "Newer schema", /9999_from_the_future/);
  });

  test("a folder that is not empty is refused without --force and left as it was", async () => {
    const archive = await smallBackup();
    const target = join(scratch(), "data");
    mkdirSync(target);
    writeFileSync(join(target, "keep.txt"), "mine");
    const result = await cli(["restore", archive, "--data-dir", target], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("is not empty; pass --force");
    expect(readdirSync(target)).toEqual(["keep.txt"]);
  });

  test("--force restores over a folder and moves its old contents aside", async () => {
    const archive = await smallBackup();
    const parent = scratch();
    const target = join(parent, "data");
    mkdirSync(target);
    writeFileSync(join(target, "keep.txt"), "mine");
    const result = await restoreBackup(loadConfig(local(target)), archive, { force: true });
    expect(existsSync(join(target, "vitrin.db"))).toBe(true);
    expect(existsSync(join(target, "keep.txt"))).toBe(false);
    expect(readFileSync(join(result.previous!, "keep.txt"), "utf8")).toBe("mine");
    expect(readdirSync(parent).sort()).toEqual(["data", result.previous!.slice(parent.length + 1)].sort());
  });

  test("--force refuses a data dir whose database a running service has open", async () => {
    const archive = await smallBackup();
    const dir = scratch();
    const t = await serviceOn(dir);
    await t.newAccount({ credits: 1 });
    const error = await restoreBackup(loadConfig(local(dir)), archive, { force: true }).catch((e) => e);
    expect(error).toBeInstanceOf(BackupError);
    expect(error.kind).toBe("In use");
    expect(readdirSync(dir).some((f) => f.includes("before-restore"))).toBe(false);
    expect((await t.json("GET", "/v1/admin/accounts", { token: ADMIN_TOKEN })).body.data).toHaveLength(1);
  });

  test("with PostgreSQL the CLI says to use pg_dump and pg_restore, and exits non-zero", async () => {
    const out = join(scratch(), "backup.tar.gz");
    const result = await cli(["backup", out], { VITRIN_DATA_DIR: scratch(), VITRIN_DATABASE_URL: POSTGRES_ADMIN_URL });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("pg_dump");
    expect(result.stderr).toContain("pg_restore");
    expect(existsSync(out)).toBe(false);
  });

  test("with S3 storage backup and restore say to use bucket versioning", async () => {
    const config = loadConfig({ VITRIN_DATA_DIR: scratch(), VITRIN_STORAGE: "s3", VITRIN_S3_BUCKET: "media" });
    for (const attempt of [createBackup(config, join(scratch(), "b.tar.gz")), restoreBackup(config, join(scratch(), "b.tar.gz"))]) {
      const error = await attempt.catch((e) => e);
      expect(error).toBeInstanceOf(BackupError);
      expect(error.message).toContain("versioning");
    }
  });
});
