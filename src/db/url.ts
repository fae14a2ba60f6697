// Reading a database URL: which implementation it selects, and the file a `sqlite:` one names.
import { existsSync } from "node:fs";
import { ConfigError } from "../config";

export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

export function sqlitePathFromUrl(url: string): string {
  if (!url.startsWith("sqlite:")) throw new Error(`not a sqlite URL: ${url}`);
  const path = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
  return path;
}

/**
 * For commands that read what a service holds (accounts, tokens, jobs, the ledger): a SQLite file that is not there
 * is refused rather than made empty and read, so a mistyped VITRIN_DATA_DIR cannot pass for a sound, empty ledger.
 */
export function requireExistingDatabase(url: string): void {
  if (isPostgresUrl(url) || !url.startsWith("sqlite:")) return;
  const path = sqlitePathFromUrl(url);
  if (path !== ":memory:" && !existsSync(path)) {
    throw new ConfigError(`VITRIN_DATA_DIR: no database at ${path}: is it (or --data-dir) the service's? (\`vitrin serve\` or \`vitrin accounts create\` makes one)`);
  }
}
