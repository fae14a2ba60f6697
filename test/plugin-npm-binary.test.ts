// The recipe of docs/plugins.md ("Plugins from npm") end to end with the compiled binary alone: the binary writes the
// kit's tarball, the example (examples/plugins/payment-banktransfer, which depends on nanoid) is installed against it
// and bundled with its own `npm run build` into one file, and the binary loads that file from VITRIN_PLUGIN_DIRS: its
// command shows in --help and runs, and it takes top-ups while serving.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Subprocess } from "bun";
import { compiledBinary } from "./compiled-binary";
import { pluginProject } from "./support/plugin-project";
import { freePort, tempDir } from "./helpers";

const KIT_DIR = join(import.meta.dir, "..", "packages", "plugin-kit");
const INSTRUCTIONS = "https://shop.example/pay-by-transfer";

let exe = "";
let work = "";
let project = "";
let server: Subprocess<"ignore", "pipe", "pipe"> | null = null;
const serverLog: string[] = [];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: work,
    VITRIN_DATA_DIR: join(work, "data"),
    VITRIN_NATIVE_DIR: join(work, "native-cache"),
    VITRIN_PLUGIN_DIRS: join(work, "plugins"),
    VITRIN_BACKGROUND_REMOVAL: "none",
    ...extra,
  };
}

function cli(...args: string[]) {
  const out = Bun.spawnSync([exe, ...args], { cwd: work, env: env(), stdout: "pipe", stderr: "pipe" });
  return { code: out.exitCode, stdout: out.stdout.toString(), stderr: out.stderr.toString() };
}

async function drain(stream: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) serverLog.push(decoder.decode(chunk, { stream: true }));
}

beforeAll(async () => {
  exe = await compiledBinary();
  work = tempDir("vitrin-npm-plugin-");
  const kit = cli("plugins", "kit", join(work, "kit"));
  if (kit.code !== 0) throw new Error(`vitrin plugins kit failed: ${kit.stderr}`);
  project = await pluginProject(join(work, "kit", readdirSync(join(work, "kit"))[0]!));
  // `npm run build` as the author runs it: the example's own build script, with this Bun on PATH as `bun`.
  mkdirSync(join(work, "bin"));
  symlinkSync(process.execPath, join(work, "bin", "bun"));
  const build = Bun.spawnSync([process.execPath, "run", "build"], {
    cwd: project,
    env: { ...process.env, PATH: `${join(work, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (build.exitCode !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  mkdirSync(join(work, "plugins"));
  copyFileSync(join(project, "dist", "payment-banktransfer.js"), join(work, "plugins", "payment-banktransfer.js"));
}, 300_000);

afterAll(async () => {
  server?.kill("SIGKILL");
  await server?.exited;
  for (const dir of [work, dirname(project)]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a plugin with an npm dependency, bundled per the recipe, in the compiled binary", () => {
  test("the binary writes the kit's tarball with the files of packages/plugin-kit", async () => {
    const [tarball] = readdirSync(join(work, "kit"));
    const files = await new Bun.Archive(await Bun.file(join(work, "kit", tarball!)).bytes()).files();
    const pkg = JSON.parse(await files.get("package/package.json")!.text());
    expect(tarball).toBe(`vitrin-plugin-kit-${pkg.version}.tgz`);
    const committed = readdirSync(KIT_DIR, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.size).toBe(committed.length);
    for (const entry of committed) {
      const path = join(entry.parentPath, entry.name);
      expect(await files.get(`package/${path.slice(KIT_DIR.length + 1)}`)?.text()).toBe(readFileSync(path, "utf8"));
    }
  });

  test("the bundle is one file that carries nanoid and imports nothing from npm or vitrin", () => {
    const bundle = readFileSync(join(work, "plugins", "payment-banktransfer.js"), "utf8");
    expect(bundle).toContain("customAlphabet");
    const imports = [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((spec) => !/^(node:)?(fs\/promises|path|crypto)$/.test(spec!))).toEqual([]);
  });

  test("`vitrin --help` lists the plugin's command", () => {
    const help = cli("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/vitrin banktransfer find REFERENCE \[--json\]\s+the top-up a bank transfer's reference pays \(plugin payment-banktransfer\)/);
  });

  test("serving, a top-up gets a reference on the payer's page that `banktransfer find` turns back into the top-up", async () => {
    const created = cli("accounts", "create", "--name", "Shop", "--json");
    expect(created.code).toBe(0);
    const { token } = JSON.parse(created.stdout);
    const port = freePort();
    server = Bun.spawn([exe, "serve"], {
      cwd: work,
      env: env({ VITRIN_PORT: String(port), VITRIN_HOST: "127.0.0.1", VITRIN_PAYMENT: "banktransfer", VITRIN_PLUGIN_BANKTRANSFER_INSTRUCTIONS_URL: INSTRUCTIONS }),
      stdout: "pipe",
      stderr: "pipe",
    });
    void drain(server.stdout);
    void drain(server.stderr);
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/healthz`).catch(() => null))?.status === 200) break;
      if (i > 600) throw new Error(`the server did not start:\n${serverLog.join("")}`);
      await Bun.sleep(100);
    }
    const res = await fetch(`${base}/v1/balance/top-up`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: 1500, currency: "eur" }),
    });
    expect(res.status).toBe(201);
    const top = (await res.json()) as { id: string; platform: string; payment_url: string };
    expect(top.platform).toBe("banktransfer");
    const page = new URL(top.payment_url);
    expect(`${page.origin}${page.pathname}`).toBe(INSTRUCTIONS);
    expect(page.searchParams.get("amount")).toBe("1500");
    const reference = page.searchParams.get("reference")!;
    expect(reference).toMatch(/^VT-[3-9A-HJ-NP-Z]{4}-[3-9A-HJ-NP-Z]{5}$/);

    // The operator types it from the bank statement: in lower case, in pieces.
    const found = cli("banktransfer", "find", ...reference.toLowerCase().split("-"), "--json");
    expect(found.stderr).toBe("");
    expect(found.code).toBe(0);
    expect(JSON.parse(found.stdout)).toMatchObject({ reference, top_up_id: top.id, amount: 1500, currency: "eur" });
    expect(cli("banktransfer", "find", reference).stdout).toContain(`${reference} pays top-up ${top.id} (€15.00); book it with: vitrin topups complete ${top.id}`);

    // The advice works: the operator books the transfer, and the account has its credits.
    const booked = Bun.spawnSync([exe, "topups", "complete", top.id], {
      cwd: work,
      env: env({ VITRIN_PAYMENT: "banktransfer", VITRIN_PLUGIN_BANKTRANSFER_INSTRUCTIONS_URL: INSTRUCTIONS }),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(booked.stderr.toString()).toBe("");
    expect(booked.exitCode).toBe(0);
    const balance = await fetch(`${base}/v1/balance`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await balance.json()) as { credits: number }).credits).toBeGreaterThan(0);
    const after = await fetch(`${base}/v1/balance/top-ups/${top.id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await after.json()) as { status: string }).status).toBe("paid");
  }, 90_000);

  test("`banktransfer find` refuses a reference with two characters swapped, naming the typo", () => {
    const refs = readFileSync(join(work, "data", "banktransfer", "references.jsonl"), "utf8").trim().split("\n");
    const { reference } = JSON.parse(refs[0]!) as { reference: string };
    const symbols = [...reference.replaceAll("-", "").slice(2)];
    const j = symbols.findIndex((c, i) => i < 7 && c !== symbols[i + 1]);
    [symbols[j], symbols[j + 1]] = [symbols[j + 1]!, symbols[j]!];
    const swapped = symbols.join("");
    const found = cli("banktransfer", "find", swapped);
    expect(found.code).toBe(1);
    expect(found.stderr).toContain("mistyped");
  });
});
