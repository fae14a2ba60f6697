// A folder of this user's own under the shared temp folder (/tmp), checked before anything is written to or read
// from it: another user could have made it first, to plant files vitrin would then load (native libraries, fonts).
import { lstatSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** `<tmp>/<name>-<uid>`, this user's folder of that name under the temp folder (neither made nor checked). */
export function userTmpPath(name: string): string {
  return join(tmpdir(), `${name}-${process.getuid?.() ?? "user"}`);
}

/** userTmpPath(name), made (mode 0700) if missing; throws when it is not this user's alone. */
export function userTmpDir(name: string): string {
  const uid = process.getuid?.();
  const dir = userTmpPath(name);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") throw e;
  }
  // lstat, not stat: a link to somewhere else is refused rather than followed.
  const info = lstatSync(dir);
  const problem = !info.isDirectory()
    ? "is not a folder (a link or a file)"
    : uid !== undefined && info.uid !== uid
      ? `belongs to user ${info.uid}, not to this one (${uid})`
      : (info.mode & 0o022) !== 0
        ? "may be written by other users"
        : null;
  if (problem) throw new Error(`${dir} ${problem}: remove it, so vitrin can make its own, or point TMPDIR elsewhere`);
  return dir;
}
