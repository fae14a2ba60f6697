// Install without surprises: the run command's system-package step says what it installs and how to skip it, and
// exits with the exact command when skipped or unable; npm runs no unknown config, no unlisted install scripts and
// no telemetry package; VITRIN_SKIP_SYSTEM_DEPS is a declared setting, so the service does not refuse it.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { startService, tempDir } from "./helpers";

const ROOT = join(import.meta.dir, "..");
const SCRIPT = join(ROOT, "scripts", "ensure-ffmpeg.sh");
const BASH = Bun.which("bash")!;
const isRoot = process.getuid?.() === 0;

/** A PATH holding only what the script needs (id, tr) plus the fake tools asked for. */
function fakePath(tools: Record<string, string> = {}): string {
  const bin = tempDir("vitrin-path-");
  for (const name of ["id", "tr"]) symlinkSync(Bun.which(name)!, join(bin, name));
  for (const [name, body] of Object.entries(tools)) {
    writeFileSync(join(bin, name), `#!${BASH}\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return bin;
}

function ensureFfmpeg(bin: string, extra: Record<string, string> = {}) {
  const p = Bun.spawnSync([BASH, SCRIPT], { env: { PATH: bin, ...extra }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** A stand-in apt-get: logs its arguments, and on `install` puts executables named ffmpeg and ffprobe on the PATH. */
const FAKE_APT_GET = [
  'here="${0%/*}"',
  'echo "$@" >> "$here/apt-get.log"',
  `if [ "$1" = "install" ]; then for t in ffmpeg ffprobe; do printf '#!/bin/sh\\n' > "$here/$t"; ${Bun.which("chmod")} +x "$here/$t"; done; fi`,
].join("\n");

describe("scripts/ensure-ffmpeg.sh", () => {
  test("with ffmpeg and ffprobe present it says nothing and succeeds", () => {
    const r = ensureFfmpeg(fakePath({ ffmpeg: "exit 0", ffprobe: "exit 0" }));
    expect(r).toEqual({ code: 0, out: "", err: "" });
  });

  test("VITRIN_SKIP_SYSTEM_DEPS=1 installs nothing and exits 1 with the exact command", () => {
    const bin = fakePath({ "apt-get": FAKE_APT_GET });
    const r = ensureFfmpeg(bin, { VITRIN_SKIP_SYSTEM_DEPS: "1" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("VITRIN_SKIP_SYSTEM_DEPS");
    expect(r.err).toContain("  sudo apt-get install -y ffmpeg");
    expect(existsSync(join(bin, "apt-get.log"))).toBe(false);
  });

  test("without a package manager it exits 1 and says how to get ffmpeg", () => {
    const r = ensureFfmpeg(fakePath());
    expect(r.code).toBe(1);
    expect(r.err).toContain("no apt-get");
    expect(r.err).toContain("ffmpeg.org");
  });

  test.skipIf(!isRoot)("as root with apt-get it first says what it installs, why and how to skip, then installs", () => {
    const bin = fakePath({ "apt-get": FAKE_APT_GET });
    const r = ensureFfmpeg(bin);
    expect(r.code).toBe(0);
    const [first] = r.err.split("\n");
    expect(first).toContain("installing the system package ffmpeg");
    expect(first).toContain("VITRIN_SKIP_SYSTEM_DEPS=1");
    const calls = readFileSync(join(bin, "apt-get.log"), "utf8");
    expect(calls).toContain("install -y");
    expect(calls).toContain("ffmpeg");
  });

  test.skipIf(!isRoot)("a failed apt-get exits 1 with the command, no stack trace", () => {
    const r = ensureFfmpeg(fakePath({ "apt-get": "exit 100" }));
    expect(r.code).toBe(1);
    expect(r.err).toContain("installing ffmpeg with apt-get failed");
    expect(r.err).toContain("sudo apt-get install -y ffmpeg");
  });
});

describe("npm and the package", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

  test("VITRIN_SKIP_SYSTEM_DEPS is a declared setting: the service accepts it", () => {
    const dir = tempDir();
    expect(loadConfig({ VITRIN_DATA_DIR: dir, VITRIN_SKIP_SYSTEM_DEPS: "1" }).skipSystemDeps).toBe(true);
  });

  test("the README names Node 22 LTS, not Node 20", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("Node 22");
    expect(readme).not.toMatch(/Node(\.js)? 20/);
  });

  test("npm start and npm test first link Bun's binary when npm skipped its install script, then check ffmpeg", () => {
    expect(pkg.scripts.prestart).toBe("bash scripts/ensure-bun.sh && bash scripts/ensure-ffmpeg.sh");
    expect(pkg.scripts.pretest).toBe("bash scripts/ensure-bun.sh");
    const p = Bun.spawnSync([BASH, join(ROOT, "scripts", "ensure-bun.sh")], { stdout: "pipe", stderr: "pipe" });
    expect({ code: p.exitCode, err: p.stderr.toString() }).toEqual({ code: 0, err: "" });
  });

  test("install scripts: Bun's, esbuild's and protobufjs's allowed, onnxruntime-node's (a CUDA download) denied", () => {
    expect(pkg.allowScripts).toEqual({ bun: true, esbuild: true, protobufjs: true, "onnxruntime-node": false });
  });

  test(".npmrc sets no key npm does not know (it warned on every command)", () => {
    const settings = readFileSync(join(ROOT, ".npmrc"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith(";"));
    expect(settings).toEqual([]);
  });

  test("no telemetry package in the tree: @scarf/scarf is not in the lockfile", () => {
    const lock = readFileSync(join(ROOT, "package-lock.json"), "utf8");
    expect(lock).not.toContain("@scarf/scarf");
    expect(existsSync(join(ROOT, "node_modules", "@scarf", "scarf"))).toBe(false);
  });
});

describe("docs page", () => {
  test("/docs/ leads to /docs, and /favicon.ico is an image", async () => {
    const t = await startService();
    try {
      const slash = await t.call("GET", "/docs/");
      expect(slash.status).toBe(308);
      expect(slash.headers.get("location")).toBe("/docs");
      expect((await t.call("GET", "/docs")).status).toBe(200);
      const icon = await t.call("GET", "/favicon.ico");
      expect(icon.status).toBe(200);
      expect(icon.headers.get("content-type")).toBe("image/png");
      expect(new Uint8Array(await icon.arrayBuffer()).slice(1, 4)).toEqual(new TextEncoder().encode("PNG"));
    } finally {
      await t.close();
    }
  });
});
