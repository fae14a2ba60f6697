// The migrations drizzle-kit generated (SQLite in drizzle/sqlite, PostgreSQL in drizzle/pg), imported as text so they
// travel inside a compiled binary. After `npm run db:generate` (or db:generate:pg), add the new file here;
// test/db.test.ts fails while a journal and its list differ.
import { ConfigError } from "../config";
import journal from "../../drizzle/sqlite/meta/_journal.json";
import m0000 from "../../drizzle/sqlite/0000_init.sql" with { type: "text" };
import m0001 from "../../drizzle/sqlite/0001_claim_indexes.sql" with { type: "text" };
import m0002 from "../../drizzle/sqlite/0002_webhook_outbox.sql" with { type: "text" };
import m0003 from "../../drizzle/sqlite/0003_attempts_by_message.sql" with { type: "text" };
import m0004 from "../../drizzle/sqlite/0004_brands.sql" with { type: "text" };
import m0005 from "../../drizzle/sqlite/0005_video_music.sql" with { type: "text" };
import m0006 from "../../drizzle/sqlite/0006_formats_metadata.sql" with { type: "text" };
import m0007 from "../../drizzle/sqlite/0007_webhook_endpoints.sql" with { type: "text" };
import m0008 from "../../drizzle/sqlite/0008_dekupe_attempts.sql" with { type: "text" };
import m0009 from "../../drizzle/sqlite/0009_studio_sessions.sql" with { type: "text" };
import m0010 from "../../drizzle/sqlite/0010_dekupe_error_codes.sql" with { type: "text" };
import pgJournal from "../../drizzle/pg/meta/_journal.json";
import pg0000 from "../../drizzle/pg/0000_init.sql" with { type: "text" };
import pg0001 from "../../drizzle/pg/0001_webhook_outbox.sql" with { type: "text" };
import pg0002 from "../../drizzle/pg/0002_attempts_by_message.sql" with { type: "text" };
import pg0003 from "../../drizzle/pg/0003_brands.sql" with { type: "text" };
import pg0004 from "../../drizzle/pg/0004_video_music.sql" with { type: "text" };
import pg0005 from "../../drizzle/pg/0005_formats_metadata.sql" with { type: "text" };
import pg0006 from "../../drizzle/pg/0006_webhook_endpoints.sql" with { type: "text" };
import pg0007 from "../../drizzle/pg/0007_dekupe_attempts.sql" with { type: "text" };
import pg0008 from "../../drizzle/pg/0008_studio_sessions.sql" with { type: "text" };
import pg0009 from "../../drizzle/pg/0009_dekupe_error_codes.sql" with { type: "text" };

const files: Record<string, string> = {
  "0000_init": m0000,
  "0001_claim_indexes": m0001,
  "0002_webhook_outbox": m0002,
  "0003_attempts_by_message": m0003,
  "0004_brands": m0004,
  "0005_video_music": m0005,
  "0006_formats_metadata": m0006,
  "0007_webhook_endpoints": m0007,
  "0008_dekupe_attempts": m0008,
  "0009_studio_sessions": m0009,
  "0010_dekupe_error_codes": m0010,
};

const pgFiles: Record<string, string> = {
  "0000_init": pg0000,
  "0001_webhook_outbox": pg0001,
  "0002_attempts_by_message": pg0002,
  "0003_brands": pg0003,
  "0004_video_music": pg0004,
  "0005_formats_metadata": pg0005,
  "0006_webhook_endpoints": pg0006,
  "0007_dekupe_attempts": pg0007,
  "0008_studio_sessions": pg0008,
  "0009_dekupe_error_codes": pg0009,
};

export type Migration = { tag: string; when: number; hash: string; statements: string[] };

function load(entries: { tag: string; when: number }[], texts: Record<string, string>, where: string): Migration[] {
  return entries.map((entry) => {
    const text = texts[entry.tag];
    if (text === undefined) throw new Error(`migration ${where}/${entry.tag} is in the journal but not imported in src/db/migrations.ts`);
    return {
      tag: entry.tag,
      when: entry.when,
      hash: new Bun.CryptoHasher("sha256").update(text).digest("hex"),
      statements: text
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    };
  });
}

export function sqliteMigrations(): Migration[] {
  return load(journal.entries, files, "sqlite");
}

export function postgresMigrations(): Migration[] {
  return load(pgJournal.entries, pgFiles, "pg");
}

export const importedMigrationTags = Object.keys(files);
export const importedPostgresMigrationTags = Object.keys(pgFiles);

/**
 * Refuses a database whose latest applied migration is newer than any this binary carries: it was migrated by a newer
 * vitrin, whose tables this one would misread (an older binary put back after an upgrade, say).
 */
export function refuseNewerSchema(lastApplied: number, known: Migration[]): void {
  const latest = known[known.length - 1];
  if (!latest || lastApplied <= latest.when) return;
  throw new ConfigError(
    `the database was migrated by a newer vitrin (its latest migration is from ${new Date(lastApplied).toISOString()}; ` +
      `this one knows up to ${latest.tag}): run that vitrin, or a newer one, on it`,
  );
}
