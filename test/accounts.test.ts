// Accounts and tokens through the admin API and the CLI: tokens shown once, stored hashed, revocable; credit grants.
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { ADMIN_TOKEN, onPostgres, startService, tempDir, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

describe("admin API", () => {
  test("creating an account returns it with a token that works", async () => {
    t = await startService();
    const res = await t.json("POST", "/v1/admin/accounts", {
      token: ADMIN_TOKEN,
      body: { name: "Shop", credits: 50, language: "tr", is_premium: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.account).toEqual({
      id: expect.stringMatching(/^acct_/),
      object: "account",
      name: "Shop",
      credits: 50,
      is_premium: true,
      language: "tr",
      webhook_url: null,
      created_at: expect.any(String),
    });
    expect(res.body.token).toMatch(/^vt_[0-9A-Za-z]{40}$/);
    expect((await t.call("GET", "/v1/products", { token: res.body.token })).status).toBe(200);
  });

  test("a wrong admin token is a 401", async () => {
    t = await startService();
    const res = await t.json("POST", "/v1/admin/accounts", { token: "not-the-admin-token-at-all", body: {} });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("Unauthorized");
  });

  test("an account token cannot use the admin API", async () => {
    t = await startService();
    const a = await t.newAccount();
    expect((await t.json("GET", "/v1/admin/accounts", { token: a.token })).status).toBe(401);
  });

  test("an invalid language is a 422", async () => {
    t = await startService();
    const res = await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: { language: "not a language!" } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("language");
  });

  test("tokens are stored only as hashes", async () => {
    t = await startService();
    const a = await t.newAccount();
    const { db } = t.service;
    const rows = await db.read.select({ hash: db.schema.tokens.hash, hint: db.schema.tokens.hint }).from(db.schema.tokens);
    expect(rows.length).toBe(1);
    expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0].hash).not.toContain(a.token);
    expect(rows[0].hint).not.toContain(a.token);
    // On SQLite the whole database is one file we can search for the token itself.
    if (!onPostgres) expect(await Bun.file(join(t.dir, "vitrin.db")).text()).not.toContain(a.token);
  });

  test("a second token can be issued and a revoked one stops working", async () => {
    t = await startService();
    const a = await t.newAccount();
    const issued = await t.json("POST", `/v1/admin/accounts/${a.id}/tokens`, { token: ADMIN_TOKEN, body: { name: "ci" } });
    expect(issued.status).toBe(201);
    expect((await t.call("GET", "/v1/products", { token: issued.body.token })).status).toBe(200);
    const revoked = await t.json("DELETE", `/v1/admin/tokens/${issued.body.id}`, { token: ADMIN_TOKEN });
    expect(revoked.body).toEqual({ id: issued.body.id, object: "token", deleted: true });
    expect((await t.call("GET", "/v1/products", { token: issued.body.token })).status).toBe(401);
    expect((await t.call("GET", "/v1/products", { token: a.token })).status).toBe(200);
  });

  test("a credit grant books a grant transaction and raises the balance", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 10 });
    const res = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, {
      token: ADMIN_TOKEN,
      body: { amount: 25, description: "Welcome bonus" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^txn_/), amount: 25, type: "grant", platform: "system", description: "Welcome bonus", balance_after: 35 });
    const acct = await t.json("GET", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN });
    expect(acct.body.credits).toBe(35);
  });

  test("a grant with a blank description is described by what it is, not left blank", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 10 });
    const grant = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 5, description: "  " } });
    expect(grant.body.description).toBe("Credits granted by an operator");
    const fix = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: -2, description: "" } });
    expect(fix.body.description).toBe("Correction by an operator");
  });

  test("a correction below zero is a 409 and changes nothing", async () => {
    t = await startService();
    const a = await t.newAccount({ credits: 10 });
    const res = await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: -11 } });
    expect(res.status).toBe(409);
    expect((await t.json("GET", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN })).body.credits).toBe(10);
  });

  test("grants for an unknown account are a 404", async () => {
    t = await startService();
    const res = await t.json("POST", "/v1/admin/accounts/acct_nope/credits", { token: ADMIN_TOKEN, body: { amount: 5 } });
    expect(res.status).toBe(404);
  });

  test("the accounts list pages newest first and searches names and ids in any case, taking % and _ as letters", async () => {
    t = await startService();
    const make = async (name: string) => (await t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: { name } })).body.account.id as string;
    const ids: string[] = [];
    for (let i = 1; i <= 23; i++) ids.push(await make(`Shop ${i}`));
    const odd = await make("100%_off Ltd");
    const turkish = [await make("Şeker Dükkanı"), await make("İstanbul Çiçek")];
    const list = (query: string) => t.json("GET", `/v1/admin/accounts${query}`, { token: ADMIN_TOKEN });

    const seen: string[] = [];
    let after = "";
    for (let pages = 0; pages < 5; pages++) {
      const res = await list(`?limit=10${after ? `&starting_after=${after}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((a: { id: string }) => a.id));
      if (!res.body.has_more) break;
      after = seen[seen.length - 1];
    }
    expect(seen.toSorted()).toEqual([...ids, odd, ...turkish].toSorted());
    expect((await list("")).body.data).toHaveLength(20);
    const back = await list(`?limit=10&ending_before=${seen[10]}`);
    expect(back.body.data.map((a: { id: string }) => a.id)).toEqual(seen.slice(0, 10));

    const names = async (q: string) => ((await list(`?q=${encodeURIComponent(q)}&limit=100`)).body.data as { name: string }[]).map((a) => a.name).toSorted();
    expect(await names("SHOP 2")).toEqual(["Shop 2", "Shop 20", "Shop 21", "Shop 22", "Shop 23"]);
    expect(await names("100%")).toEqual(["100%_off Ltd"]);
    expect(await names("%_o")).toEqual(["100%_off Ltd"]);
    expect(await names(ids[4].toUpperCase())).toEqual(["Shop 5"]);
    expect(await names("no such shop")).toEqual([]);
    expect(await names("  ")).toHaveLength(26);
    // Letters beyond ASCII in any case, Turkish dotted and dotless i included.
    const found: [string, string][] = [
      ["şeker", "Şeker Dükkanı"],
      ["ŞEKER", "Şeker Dükkanı"],
      ["DÜKKAN", "Şeker Dükkanı"],
      ["istanbul", "İstanbul Çiçek"],
      ["ÇİÇEK", "İstanbul Çiçek"],
      ["çiçek", "İstanbul Çiçek"],
    ];
    for (const [q, name] of found) expect([q, await names(q)]).toEqual([q, [name]]);

    expect((await list("?starting_after=acct_nope")).body.details).toEqual([{ field: "starting_after", message: "no account with id acct_nope" }]);
    expect((await list("?colour=red")).status).toBe(422);
    expect((await list("?limit=101")).status).toBe(422);
  });

  test("is_premium is set through PATCH", async () => {
    t = await startService();
    const a = await t.newAccount();
    const res = await t.json("PATCH", `/v1/admin/accounts/${a.id}`, { token: ADMIN_TOKEN, body: { is_premium: true } });
    expect(res.body.is_premium).toBe(true);
  });
});

describe("CLI", () => {
  const cli = (dir: string, ...args: string[]) =>
    Bun.spawnSync([process.execPath, "run", "src/main.ts", ...args], {
      env: { PATH: process.env.PATH ?? "", VITRIN_DATA_DIR: dir, VITRIN_LOG_LEVEL: "silent" },
      cwd: join(import.meta.dir, ".."),
    });

  test("accounts create --json prints {account, token}; tokens revoke makes it useless", async () => {
    const dir = tempDir();
    try {
      const created = cli(dir, "accounts", "create", "--name", "Shop", "--credits", "7", "--json");
      expect(created.exitCode).toBe(0);
      const out = JSON.parse(created.stdout.toString());
      expect(out.account).toMatchObject({ id: expect.stringMatching(/^acct_/), name: "Shop", credits: 7 });
      expect(out.token).toMatch(/^vt_/);
      const list = JSON.parse(cli(dir, "accounts", "list", "--json").stdout.toString());
      expect(list.data.map((a: { id: string }) => a.id)).toEqual([out.account.id]);
      const revoke = cli(dir, "tokens", "revoke", out.token_id);
      expect(revoke.exitCode).toBe(0);
      const again = cli(dir, "tokens", "revoke", out.token_id);
      expect(again.exitCode).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("tokens create and tokens list --json answer as the API does: snake_case, ISO dates, never the token in a list", () => {
    const dir = tempDir();
    try {
      const account = JSON.parse(cli(dir, "accounts", "create", "--json").stdout.toString()).account.id as string;
      const issued = JSON.parse(cli(dir, "tokens", "create", account, "--name", "ci", "--json").stdout.toString());
      expect([issued.object, issued.name, /^tok_/.test(issued.id), /^vt_/.test(issued.token)]).toEqual(["token", "ci", true, true]);
      expect(cli(dir, "tokens", "revoke", issued.id).exitCode).toBe(0);
      const listed = JSON.parse(cli(dir, "tokens", "list", account, "--json").stdout.toString()).data;
      const row = listed.find((r: { id: string }) => r.id === issued.id);
      expect(Object.keys(row).sort()).toEqual(["created_at", "hint", "id", "last_used_at", "name", "object", "revoked_at"]);
      expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
      expect(row.revoked_at).toMatch(/Z$/);
      expect(JSON.stringify(listed)).not.toContain(issued.token);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a bad setting stops the process with a message naming the variable", () => {
    const res = Bun.spawnSync([process.execPath, "run", "src/main.ts", "migrate"], {
      env: { PATH: process.env.PATH ?? "", VITRIN_PORT: "eighty" },
      cwd: join(import.meta.dir, ".."),
    });
    expect(res.exitCode).toBe(2);
    expect(res.stderr.toString()).toContain("VITRIN_PORT");
  });
});
