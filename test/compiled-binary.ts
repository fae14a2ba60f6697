// One compiled binary per test run: scripts/build.ts takes a minute or more, so the test files that need the
// executable (binary.test.ts, plugin-npm-binary.test.ts) share one build, made on first use and removed at exit.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
let built: Promise<string> | null = null;

async function build(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-build-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const exe = join(dir, "vitrin");
  const proc = Bun.spawn([process.execPath, "run", join(ROOT, "scripts", "build.ts"), "--outfile", exe], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`build failed:\n${stdout}\n${stderr}`);
  return exe;
}

/** The path of the executable scripts/build.ts made for this run (copy it to use it elsewhere; do not modify it). */
export function compiledBinary(): Promise<string> {
  built ??= build();
  return built;
}
