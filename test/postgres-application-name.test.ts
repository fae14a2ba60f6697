// vitrin's PostgreSQL connections carry application_name "vitrin", so an operator tells them from others' in
// pg_stat_activity; a URL that names its own (to tell roles apart) keeps it.
import { expect, test } from "bun:test";
import { openDatabase, pgClientOf } from "../src/db";
import { POSTGRES_ADMIN_URL, postgresAvailable } from "./helpers";

async function applicationNameOf(url: string): Promise<string> {
  const db = openDatabase(url);
  try {
    const [row] = await pgClientOf(db.read)`select current_setting('application_name') as name`;
    return row.name;
  } finally {
    await db.close();
  }
}

test.skipIf(!postgresAvailable)("connections are named vitrin unless the URL names them", async () => {
  expect(await applicationNameOf(POSTGRES_ADMIN_URL)).toBe("vitrin");
  const named = new URL(POSTGRES_ADMIN_URL);
  named.searchParams.set("application_name", "vitrin-api");
  expect(await applicationNameOf(named.href)).toBe("vitrin-api");
});
