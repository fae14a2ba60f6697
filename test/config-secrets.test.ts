// A setting refused at start never repeats a secret in its error (start-up errors end up in shared logs): a token or
// key by its length only, a database URL with its password as ***; other values are shown as given.
import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config";
import { readSetting, type Setting } from "../src/config/parse";
import { POSTGRES_ADMIN_URL, postgresAvailable } from "./helpers";

const refusal = (env: Record<string, string>) => {
  try {
    loadConfig({ VITRIN_DATA_DIR: "/tmp/vitrin-config-secrets", ...env });
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
};

test("a too-short admin token is refused without showing it", () => {
  const message = refusal({ VITRIN_ADMIN_TOKEN: "MySecretAdmin15" });
  expect(message).toBe("VITRIN_ADMIN_TOKEN=(15 characters, not shown): must be at least 16 characters");
  expect(message).not.toContain("MySecret");
});

test("a database URL's password is hidden, the rest shown to find the mistake", () => {
  const message = refusal({ VITRIN_DATABASE_URL: "mysql://shop:TopSecretPw@db.local/vitrin" });
  expect(message).toStartWith('VITRIN_DATABASE_URL="mysql://shop:***@db.local/vitrin": ');
  expect(message).not.toContain("TopSecretPw");
  // A password with / or @ in it, a URL missing a slash, libpq's key=value form, a query string: hidden whole.
  for (const [given, shown] of [
    ["mysql://u:pa/ss@h/db", "mysql://u:***@h/db"],
    ["mysql://u:p@ss@h/db", "mysql://u:***@h/db"],
    ["postgres:/u:hunter2@h/db", "postgres:/u:***@h/db"],
    ["host=db user=u password=hunter2 dbname=v", "host=db user=u password=*** dbname=v"],
    ["mysql://u@h/db?password=hunter2&ssl=1", "mysql://u@h/db?password=***&ssl=1"],
  ]) {
    expect(refusal({ VITRIN_DATABASE_URL: given })).toStartWith(`VITRIN_DATABASE_URL=${JSON.stringify(shown)}: `);
  }
});

test("a setting whose name only looks like a secret's part is shown: VITRIN_ALLOW_PRIVATE_NETWORKS", () => {
  expect(refusal({ VITRIN_ALLOW_PRIVATE_NETWORKS: "maybe" })).toBe('VITRIN_ALLOW_PRIVATE_NETWORKS="maybe": must be true or false');
});

test("a plugin setting named as a secret, or declared one, is hidden too; others are shown", () => {
  const failing = (env: string, secret?: boolean): Setting<string> => ({ env, default: "", doc: "", secret, parse: () => { throw new Error("is wrong"); } });
  const read = (s: Setting<string>) => {
    try {
      readSetting(s, { env: { [s.env]: "abc123" }, config: {} });
    } catch (e) {
      return (e as Error).message;
    }
  };
  expect(read(failing("VITRIN_PLUGIN_SANDBOX_SECRET"))).toBe("VITRIN_PLUGIN_SANDBOX_SECRET=(6 characters, not shown): is wrong");
  expect(read(failing("VITRIN_PLUGIN_MAIL_API_KEY"))).toBe("VITRIN_PLUGIN_MAIL_API_KEY=(6 characters, not shown): is wrong");
  expect(read(failing("VITRIN_PLUGIN_MAIL_CREDENTIALS", true))).toBe("VITRIN_PLUGIN_MAIL_CREDENTIALS=(6 characters, not shown): is wrong");
  expect(read(failing("VITRIN_PLUGIN_MAIL_REGION"))).toBe('VITRIN_PLUGIN_MAIL_REGION="abc123": is wrong');
});

test.skipIf(!postgresAvailable)("a PostgreSQL failure at start is one line naming the setting, the URL without its password, and what to do", async () => {
  const { databaseFailure, openDatabase } = await import("../src/db");
  // The test server's address with a password added and a database that is not there.
  const missing = new URL(POSTGRES_ADMIN_URL);
  missing.password = "pw-secret";
  missing.pathname = "/vitrin_no_such_database";
  for (const [url, expected] of [
    ["postgres://vitrin:pw-secret@127.0.0.1:1/x", "is PostgreSQL running and listening at that host and port?"],
    [missing.href, "create the database first"],
  ]) {
    const db = openDatabase(url);
    const failure = await db.migrate().then(() => null, (e: unknown) => e);
    await db.close().catch(() => {});
    const line = databaseFailure(failure, url)!;
    expect(line).toStartWith("database error: ");
    expect(line).toContain(`(VITRIN_DATABASE_URL="${url.replace(":pw-secret@", ":***@")}")`);
    expect(line).toContain(expected);
    expect(line).not.toContain("\n");
  }
  expect(databaseFailure(new Error("something else"), "postgres://x")).toBeNull();
});
