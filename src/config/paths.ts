// Default folders that must be known before the configuration is loaded (the native loader runs at import time).
import { homedir } from "node:os";
import { join } from "node:path";
import { userTmpDir } from "../kernel";

/**
 * A per-user cache folder: $XDG_CACHE_HOME/vitrin/native, ~/.cache/vitrin/native, or one under the temp folder, which
 * is checked to be this user's alone (the native libraries in it are loaded into the process).
 */
export function defaultNativeDir(env: Record<string, string | undefined> = process.env): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "vitrin", "native");
  let home = "";
  try {
    home = env.HOME || homedir();
  } catch {}
  if (home && home !== "/") return join(home, ".cache", "vitrin", "native");
  return join(userTmpDir("vitrin"), "native");
}
