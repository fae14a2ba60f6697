// A real, tiny filesystem for the full-disk tests: a tmpfs mounted on a fresh folder (root only; CI runs as root), which
// a filler file fills to the last byte. Tests skip, saying why, where it cannot be mounted.
import { spawnSync } from "node:child_process";
import { closeSync, ftruncateSync, fstatSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type SmallDisk = {
  dir: string;
  /** Fills the disk with a filler file, then frees about `leaveBytes` of it again (tmpfs hands out 4 KiB pages). */
  fill(leaveBytes?: number): void;
  /** Deletes the filler: the disk has room again. */
  free(): void;
  unmount(): void;
};

/** Why a tmpfs cannot be mounted here, or null when it can. */
export function smallDiskUnavailable(): string | null {
  if (process.platform !== "linux") return "full-disk tests need Linux (tmpfs)";
  if (process.getuid?.() !== 0) return "full-disk tests mount a tmpfs and need root (CI runs as root)";
  const probe = mkdtempSync(join(tmpdir(), "vitrin-disk-probe-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]);
  if (mounted.status !== 0) {
    rmSync(probe, { recursive: true, force: true });
    return `full-disk tests could not mount a tmpfs: ${mounted.stderr.toString().trim()}`;
  }
  spawnSync("umount", ["-l", probe]);
  rmSync(probe, { recursive: true, force: true });
  return null;
}

export function mountSmallDisk(sizeKb: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-small-disk-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k`, "tmpfs", dir]);
  if (mounted.status !== 0) throw new Error(`mount failed: ${mounted.stderr.toString()}`);
  const fillerPath = join(dir, "filler");
  return {
    dir,
    fill(leaveBytes = 0) {
      const fd = openSync(fillerPath, "a");
      const chunk = Buffer.alloc(64 * 1024, 7);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      }
      // Whatever is left is smaller than a chunk: fill it page by page.
      try {
        for (;;) writeSync(fd, chunk, 0, 4096);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOSPC") throw e;
      }
      if (leaveBytes > 0) ftruncateSync(fd, Math.max(0, fstatSync(fd).size - leaveBytes));
      closeSync(fd);
    },
    free() {
      rmSync(fillerPath, { force: true });
    },
    unmount() {
      // Lazy: a connection or fd the test still holds must not make the unmount fail; the kernel lets go once closed.
      spawnSync("umount", ["-l", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
