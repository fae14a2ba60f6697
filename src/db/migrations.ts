// The SQLite migrations drizzle-kit generated, imported as text so they travel inside a compiled binary.
// After `npm run db:generate`, add the new file here; test/db.test.ts fails while the journal and this list differ.
import journal from "../../drizzle/sqlite/meta/_journal.json";
import m0000 from "../../drizzle/sqlite/0000_init.sql" with { type: "text" };

const files: Record<string, string> = {
  "0000_init": m0000,
};

export type Migration = { tag: string; when: number; hash: string; statements: string[] };

export function sqliteMigrations(): Migration[] {
  return journal.entries.map((entry) => {
    const text = files[entry.tag];
    if (text === undefined) throw new Error(`migration ${entry.tag} is in the journal but not imported in src/db/migrations.ts`);
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

export const importedMigrationTags = Object.keys(files);
