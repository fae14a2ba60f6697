// One compiled binary per test run: scripts/build.ts is slow, so the test files that need the executable
// (binary.test.ts, plugin-npm-binary.test.ts) share one build, made on first use. bun test runs no exit handlers, so
// each build sits in vitrin-build-<pid> under the temp dir, and a build removes those of processes no longer running.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const PREFIX = "vitrin-build-";
let built: Promise<string> | null = null;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the builds left by earlier test runs (their process has ended); 350 MB each. */
function sweep(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(name.slice(PREFIX.length));
    if (name.startsWith(PREFIX) && Number.isInteger(pid) && (pid === process.pid || !running(pid))) rmSync(join(tmpdir(), name), { recursive: true, force: true });
  }
}

async function build(): Promise<string> {
  sweep();
  const dir = join(tmpdir(), `${PREFIX}${process.pid}`);
  mkdirSync(dir);
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
