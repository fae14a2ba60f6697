// The migration set: every journal entry is embedded, and migrating is idempotent and safe from two processes.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readdirSync } from "node:fs";
import journal from "../drizzle/sqlite/meta/_journal.json";
import { importedMigrationTags } from "../src/db/migrations";
import { openDatabase } from "../src/db";
import { tempDir } from "./helpers";

describe("migrations", () => {
  test("every generated migration is imported (so it travels inside the binary)", () => {
    const onDisk = readdirSync(join(import.meta.dir, "..", "drizzle", "sqlite")).filter((f) => f.endsWith(".sql"));
    expect(importedMigrationTags.sort()).toEqual(journal.entries.map((e) => e.tag).sort());
    expect(onDisk.map((f) => f.replace(/\.sql$/, "")).sort()).toEqual(importedMigrationTags.sort());
  });

  test("migrate applies once and then reports nothing to do", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    expect((await db.migrate()).applied.length).toBe(journal.entries.length);
    expect((await db.migrate()).applied).toEqual([]);
    db.close();
  });

  test("two handles migrating the same file at once apply each migration exactly once", async () => {
    const path = `sqlite:${join(tempDir(), "v.db")}`;
    const a = openDatabase(path);
    const b = openDatabase(path);
    const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
    expect(ra.applied.length + rb.applied.length).toBe(journal.entries.length);
    a.close();
    b.close();
  });

  test("a rolled-back transaction leaves nothing behind", async () => {
    const db = openDatabase(`sqlite:${join(tempDir(), "v.db")}`);
    await db.migrate();
    const { accounts } = await import("../src/db/schema");
    await expect(
      db.tx(async (tx) => {
        await tx.insert(accounts).values({ id: "acct_x", createdAt: 1, updatedAt: 1 });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await db.read.select().from(accounts)).toEqual([]);
    db.close();
  });
});
