// Default folders that must be known before the configuration is loaded (the native loader runs at import time).
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { userTmpDir } from "../kernel";

/**
 * A per-user cache folder: $XDG_CACHE_HOME/vitrin/native, ~/.cache/vitrin/native (when the home folder exists), or one
 * under the temp folder, which is checked to be this user's alone (the native libraries in it are loaded into the process).
 */
export function defaultNativeDir(env: Record<string, string | undefined> = process.env): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "vitrin", "native");
  let home = "";
  try {
    home = env.HOME || homedir();
  } catch {}
  // A home that does not exist (HOME=/nonexistent, as Debian gives `nobody`) is no home: making it would create a
  // folder at the top of the file system when run as root.
  if (home && home !== "/" && existsSync(home)) return join(home, ".cache", "vitrin", "native");
  return join(userTmpDir("vitrin"), "native");
}
