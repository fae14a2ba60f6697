// Reading a database URL: which implementation it selects, the file a `sqlite:` one names, and what a start that
// cannot use a PostgreSQL one says.
import { existsSync } from "node:fs";
import { ConfigError, shownValue } from "../config";

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

/** What an operator does about the PostgreSQL failures a start meets most, by SQLSTATE or Bun's code. */
const DATABASE_HINTS: Record<string, string> = {
  ERR_POSTGRES_CONNECTION_REFUSED: "is PostgreSQL running and listening at that host and port?",
  ERR_POSTGRES_CONNECTION_TIMEOUT: "is PostgreSQL reachable at that host and port?",
  ERR_POSTGRES_CONNECTION_FAILED: "is PostgreSQL reachable at that host and port?",
  ERR_POSTGRES_CONNECTION_CLOSED: "the server closed the connection: check the host, the port and that it speaks PostgreSQL",
  "3D000": "create the database first (createdb, or CREATE DATABASE); vitrin makes its tables itself",
  "28000": "PostgreSQL refused this user from this host: an unknown role, or no pg_hba.conf line lets it in",
  "28P01": "check the password in the URL",
  "42501": "the user needs the right to create tables in the database (it owns it, or has CREATE on its schema)",
};

/**
 * A PostgreSQL failure at start (a refused connection, an unknown database or user, a wrong password) as one line
 * that names the setting, shows the URL without its password and says what to do; null for any other error.
 */
export function databaseFailure(e: unknown, url: string | undefined): string | null {
  if (!(e instanceof Error) || e.name !== "PostgresError") return null;
  const { code, errno } = e as Error & { code?: string; errno?: string };
  const hint = DATABASE_HINTS[errno ?? ""] ?? DATABASE_HINTS[code ?? ""];
  const where = url ? ` (VITRIN_DATABASE_URL=${shownValue({ env: "VITRIN_DATABASE_URL" }, url)})` : "";
  return `database error: ${e.message}${errno ? ` [${errno}]` : code ? ` [${code}]` : ""}${where}${hint ? `: ${hint}` : ""}`;
}
