// Plugins loaded from folders at start: the example sandbox payment plugin end to end, and clear errors for bad plugins.
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../src/config";
import { run } from "../src/main";
import { PluginRegistry } from "../src/plugins";
import { loadPluginFolders } from "../src/plugins/load";
import { builtinPlugins } from "../plugins";
import { signatureHeader } from "../examples/plugins/payment-sandbox";
import { childEnv, startService, tempDir, type TestService } from "./helpers";

const EXAMPLES = join(import.meta.dir, "..", "examples", "plugins");
const SECRET = "sandbox-secret-0123456789";

let svc: TestService | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await svc?.close();
  svc = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const dir = tempDir("vitrin-plugins-");
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

async function sandbox() {
  svc = await startService({ VITRIN_PLUGIN_DIRS: EXAMPLES, VITRIN_PAYMENT: "sandbox", VITRIN_PLUGIN_SANDBOX_SECRET: SECRET });
  const account = await svc.newAccount();
  const top = await svc.json("POST", "/v1/balance/top-up", { token: account.token, body: { amount: 2000, currency: "usd" } });
  expect(top.status).toBe(201);
  return { s: svc, account, top: top.body };
}

async function notify(s: TestService, event: unknown, secret = SECRET) {
  const raw = JSON.stringify(event);
  return s.call("POST", "/v1/payments/sandbox/webhook", {
    raw,
    headers: { "content-type": "application/json", "sandbox-signature": await signatureHeader(secret, raw) },
  });
}

describe("the example sandbox payment plugin, loaded from a folder", () => {
  test("a top-up goes through the folder plugin and its payer lands on vitrin's return page", async () => {
    const { s, top } = await sandbox();
    expect(top.platform).toBe("sandbox");
    expect(top.status).toBe("pending");
    expect(top.payment_url).toContain(`/pay/sandbox/return?top_up=${top.id}`);
    const ready = await s.json("GET", "/readyz");
    expect(ready.body.checks["payment-sandbox"]).toEqual({ ok: true });
  });

  test("a signed payment.succeeded books the credits once, even when sent twice", async () => {
    const { s, account, top } = await sandbox();
    const event = { id: "evt_1", type: "payment.succeeded", data: { reference: `sbx_${top.id}` } };
    expect((await notify(s, event)).status).toBe(200);
    expect((await notify(s, event)).status).toBe(200);
    const balance = await s.json("GET", "/v1/balance", { token: account.token });
    expect(balance.body.credits).toBe(200);
    const after = await s.json("GET", `/v1/balance/top-ups/${top.id}`, { token: account.token });
    expect(after.body.status).toBe("paid");
  });

  test("a webhook signed with another key is a 400 and books nothing", async () => {
    const { s, account, top } = await sandbox();
    const res = await notify(s, { id: "evt_2", type: "payment.succeeded", data: { reference: `sbx_${top.id}` } }, "not-the-secret-0123456");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("signature does not match");
    expect((await s.json("GET", "/v1/balance", { token: account.token })).body.credits).toBe(0);
  });

  test("a malformed event is refused with the path of what is wrong", async () => {
    const { s } = await sandbox();
    const res = await notify(s, { id: "evt_3", type: "payment.succeeded", data: {} });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("/data/reference");
  });

  test("without its secret the plugin refuses to start, naming the setting", async () => {
    await expect(startService({ VITRIN_PLUGIN_DIRS: EXAMPLES, VITRIN_PAYMENT: "sandbox" })).rejects.toThrow(/VITRIN_PLUGIN_SANDBOX_SECRET/);
  });
});

describe("plugins that cannot start", () => {
  /** The error a start with `file` as a storage plugin folder stops with. */
  const startWith = (text: string, env: Record<string, string> = {}) =>
    startService({ VITRIN_PLUGIN_DIRS: folder({ "s.ts": text }), VITRIN_STORAGE: "odd", ...env }).then(
      () => null,
      (e: unknown) => e as Error,
    );

  test("a plain Error thrown by create() or init() is one configuration line naming the plugin and the step", async () => {
    const created = await startWith(`export default { slot: "storage", name: "odd", create() { throw new Error("bucket unreachable"); } };`);
    expect(created).toBeInstanceOf(ConfigError);
    expect(created?.message).toBe("plugin storage-odd could not start (create threw): bucket unreachable");
    const inited = await startWith(
      `export default { slot: "storage", name: "odd", create: () => ({ put() {}, get() {}, delete() {}, url: () => "", async init() { throw new TypeError("no disk"); } }) };`,
    );
    expect(inited?.message).toBe("plugin storage-odd could not start (init threw): no disk");
  });

  test("serve stopped by a plugin's init still writes its log, the stack the one-line error points to included", () => {
    const plugins = folder({ "s.ts": `export default { slot: "storage", name: "odd", create: () => ({ put() {}, get() {}, delete() {}, url: () => "", async init() { throw new TypeError("no disk"); } }) };` });
    const dir = tempDir();
    dirs.push(dir);
    const p = Bun.spawnSync([process.execPath, "run", join(import.meta.dir, "..", "src", "main.ts"), "serve"], {
      env: { ...childEnv(dir, 0), VITRIN_PLUGIN_DIRS: plugins, VITRIN_STORAGE: "odd", VITRIN_LOG_LEVEL: "debug" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(p.exitCode).toBe(2);
    expect(p.stderr.toString()).toContain("plugin storage-odd could not start (init threw): no disk");
    const lines = p.stdout.toString().trim().split("\n").map((l) => JSON.parse(l) as { msg: string; err?: { stack?: string } });
    expect(lines.some((l) => l.msg === "plugin loaded")).toBe(true);
    const failed = lines.find((l) => l.msg === "plugin failed to start");
    expect(failed?.err?.stack).toContain("TypeError: no disk");
  });

  test("an implementation without a method its slot requires stops the start, naming the methods", async () => {
    const e = await startWith(`export default { slot: "storage", name: "odd", create: () => ({ put() {}, delete() {} }) };`);
    expect(e).toBeInstanceOf(ConfigError);
    expect(e?.message).toBe("plugin storage-odd: create() returned no get, url methods, which every storage plugin must have");
  });

  test("an implementation that calls itself by another name than its definition's stops the start, naming both", async () => {
    const e = await startWith(`export default { slot: "storage", name: "odd", create: () => ({ slot: "storage", name: "even", put() {}, get() {}, delete() {}, url: () => "" }) };`);
    expect(e).toBeInstanceOf(ConfigError);
    expect(e?.message).toBe('plugin storage-odd: create() returned a plugin that calls itself "storage"/"even"; its slot and name must be the definition\'s ("storage", "odd")');
  });

  test("a plugin or template folder that cannot be read is one configuration line naming the setting; no database is made", async () => {
    const data = tempDir("vitrin-no-db-");
    dirs.push(data);
    const plugins = await startService({ VITRIN_PLUGIN_DIRS: "/nonexistent/vitrin-plugins", VITRIN_DATA_DIR: data }).catch((e: Error) => e);
    expect(plugins).toBeInstanceOf(ConfigError);
    expect((plugins as Error).message).toStartWith("VITRIN_PLUGIN_DIRS: cannot read the plugins folder /nonexistent/vitrin-plugins");
    const templates = await startService({ VITRIN_TEMPLATE_DIRS: "/nonexistent/vitrin-templates", VITRIN_DATA_DIR: data }).catch((e: Error) => e);
    expect(templates).toBeInstanceOf(ConfigError);
    expect((templates as Error).message).toStartWith("VITRIN_TEMPLATE_DIRS: cannot read the templates folder /nonexistent/vitrin-templates");
    expect(existsSync(join(data, "vitrin.db"))).toBe(false);
  });
});

describe("plugin folders", () => {
  test("a module may export a definition, a list, or a function of the host API", async () => {
    const dir = folder({
      "renderer-a.ts": `export default { slot: "renderer", name: "a", description: "", create: () => ({ slot: "renderer", name: "a", render() { throw new Error("no"); } }) };`,
      "pair/index.js": `export default (host) => [host.definePlugin({ slot: "payment", name: "b", create: () => ({}) }), { slot: "payment", name: "c", create: () => ({}) }];`,
      "notes.md": "not a module",
      "_draft.ts": "this is skipped: syntax error (",
    });
    const registry = new PluginRegistry();
    expect(await loadPluginFolders([dir], registry)).toEqual(["payment-b", "payment-c", "renderer-a"]);
    expect(registry.names("payment")).toEqual(["b", "c"]);
  });

  test("a plugin named like a built-in one is refused, naming the file", async () => {
    const dir = folder({ "local.ts": `export default { slot: "storage", name: "local", create: () => ({}) };` });
    await expect(loadPluginFolders([dir], builtinPlugins())).rejects.toThrow(/local\.ts: plugin storage-local is registered twice/);
  });

  test("an unknown slot, a bad name or a module that does not load are clear errors", async () => {
    const bad = (text: string) => loadPluginFolders([folder({ "p.ts": text })], new PluginRegistry());
    await expect(bad(`export default { slot: "mailer", name: "x", create() {} };`)).rejects.toThrow(/slot "mailer" is not one of/);
    await expect(bad(`export default { slot: "payment", name: "Bad Name", create() {} };`)).rejects.toThrow(/name must be lowercase/);
    await expect(bad(`export default 42;`)).rejects.toThrow(/exports no plugin definition/);
    await expect(bad(`throw new Error("boom");`)).rejects.toThrow(/p\.ts failed to load: boom/);
    await expect(loadPluginFolders(["/nonexistent/vitrin-plugins"], new PluginRegistry())).rejects.toThrow(/cannot read the plugins folder/);
  });

  test("a function of the host that throws, or a command without words, is refused as configuration, naming the file", async () => {
    const bad = (text: string) => loadPluginFolders([folder({ "q.ts": text })], new PluginRegistry());
    const thrown = await bad(`export default () => { throw new Error("boom in factory"); };`).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(/q\.ts: its default-exported function threw: boom in factory/);
    const wordless = await bad(`export default { slot: "payment", name: "p", create() {}, commands: [{ words: [], usage: "", summary: "x", run: () => 0 }] };`).catch((e: unknown) => e);
    expect(wordless).toBeInstanceOf(ConfigError);
    expect((wordless as Error).message).toMatch(/q\.ts: each of its commands needs at least one word/);
  });

  test("settings named VITRIN_PLUGIN_<NAME>_<SETTING> pass; other unknown VITRIN_ names are still refused", () => {
    expect(() => builtinPlugins().settings(loadConfig({ VITRIN_PLUGIN_SANDBOX_SECRET: "x" }))).not.toThrow();
    expect(() => builtinPlugins().settings(loadConfig({ VITRIN_PLUGIN_DIR: "/x" }))).toThrow(/unknown setting VITRIN_PLUGIN_DIR/);
  });

  test("once a folder plugin is loaded, a misspelt setting under its prefix stops the start, naming it", async () => {
    await expect(startService({ VITRIN_PLUGIN_DIRS: EXAMPLES, VITRIN_PLUGIN_MEMORY_MAX_BYTE: "1000" })).rejects.toThrow(
      /unknown setting VITRIN_PLUGIN_MEMORY_MAX_BYTE: plugin storage-memory declares no such setting/,
    );
  });

  test("a slot set to a plugin whose folder has no index file names that folder as not loaded", async () => {
    await expect(startService({ VITRIN_PLUGIN_DIRS: EXAMPLES, VITRIN_PAYMENT: "banktransfer" })).rejects.toThrow(
      /unknown payment plugin "banktransfer"; available: .*sandbox \(not loaded, having no index\.ts, index\.js or index\.mjs: .*payment-banktransfer; a plugin built from npm packages is its bundled \.js file\)/,
    );
  });

  test("a folder plugin's declared setting with a bad value stops the start, naming it", async () => {
    await expect(startService({ VITRIN_PLUGIN_DIRS: EXAMPLES, VITRIN_PLUGIN_MEMORY_MAX_BYTES: "lots" })).rejects.toThrow(
      /VITRIN_PLUGIN_MEMORY_MAX_BYTES="lots": must be a whole number/,
    );
  });

  test("a folder plugin's settings must be named VITRIN_PLUGIN_<NAME>_<SETTING>", async () => {
    const dir = folder({
      "p.ts": `export default (host) => host.definePlugin({ slot: "payment", name: "pay-x", settings: { key: { env: "VITRIN_PAY_KEY", default: "", doc: "", parse: String } }, create: () => ({}) });`,
    });
    await expect(loadPluginFolders([dir], new PluginRegistry())).rejects.toThrow(/its setting VITRIN_PAY_KEY must be named VITRIN_PLUGIN_PAY_X_<SETTING>/);
  });

  test("a folder plugin's setting needs a default and a doc, which the configuration table shows", async () => {
    const load = (setting: string) =>
      loadPluginFolders([folder({ "p.ts": `export default { slot: "payment", name: "pay-y", settings: { key: ${setting} }, create: () => ({}) };` })], new PluginRegistry());
    await expect(load(`{ env: "VITRIN_PLUGIN_PAY_Y_KEY", doc: "The key.", parse: String }`)).rejects.toThrow(/its setting VITRIN_PLUGIN_PAY_Y_KEY needs a default/);
    await expect(load(`{ env: "VITRIN_PLUGIN_PAY_Y_KEY", default: "(unset)", doc: " ", parse: String }`)).rejects.toThrow(/its setting VITRIN_PLUGIN_PAY_Y_KEY needs a doc/);
    await expect(load(`{ env: "VITRIN_PLUGIN_PAY_Y_KEY", default: "(unset)", doc: "The key.", parse: String }`)).resolves.toEqual(["payment-pay-y"]);
  });
});

describe("plugin commands", () => {
  const greeter = `export default (host) => host.definePlugin({
    slot: "payment", name: "greeter", description: "",
    settings: { times: { env: "VITRIN_PLUGIN_GREETER_TIMES", default: "1", doc: "How often to greet.", parse: host.parse.integer(1, 9) } },
    commands: [{ words: ["greet"], usage: "NAME [--json]", description: "say hello", async run({ settings, args, print }) {
      print(Array(settings.times).fill("hello " + args[0]).join(" "), { greeted: args[0], times: settings.times });
      return 0;
    } }],
    create: () => ({}),
  });`;

  async function cli(args: string[], env: Record<string, string>) {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      return { code: await run(args, builtinPlugins(), { VITRIN_LOG_LEVEL: "silent", VITRIN_DATA_DIR: tempDir(), ...env }), out: lines.join("\n") };
    } finally {
      console.log = log;
    }
  }

  test("--help lists each plugin's commands, the built-in ISNet plugin's models install among them", async () => {
    const { code, out } = await cli(["models", "--help"], {});
    expect(code).toBe(0);
    expect(out).toMatch(/vitrin models install \[--json\] +assemble and verify the background-removal model .*\(plugin background-removal-isnet\)/);
  });

  test("--help lists the commands of folder plugins too; a folder that fails to load is named, and the help still prints", async () => {
    const dir = folder({ "greeter.ts": greeter });
    const listed = await cli(["--help"], { VITRIN_PLUGIN_DIRS: dir });
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/vitrin greet NAME \[--json\] +say hello \(plugin payment-greeter\)/);
    const errors: string[] = [];
    const error = console.error;
    console.error = (line: string) => errors.push(line);
    try {
      const broken = await cli(["--help"], { VITRIN_PLUGIN_DIRS: folder({ "broken.ts": "export default 42;" }) });
      expect(broken.code).toBe(0);
      expect(broken.out).toContain("vitrin models install");
    } finally {
      console.error = error;
    }
    expect(errors.join("\n")).toMatch(/commands of folder plugins not listed: plugin .*broken\.ts: it exports no plugin definition/);
  });

  test("a folder plugin's command runs with its declared settings and the words after it", async () => {
    const dir = folder({ "greeter.ts": greeter });
    const { code, out } = await cli(["greet", "ada", "--json"], { VITRIN_PLUGIN_DIRS: dir, VITRIN_PLUGIN_GREETER_TIMES: "2" });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual({ greeted: "ada", times: 2 });
  });

  test("an unknown command is a usage error", async () => {
    const errors: string[] = [];
    const error = console.error;
    console.error = (line: string) => errors.push(line);
    try {
      expect((await cli(["greet", "ada"], {})).code).toBe(2);
    } finally {
      console.error = error;
    }
    expect(errors.join("\n")).toContain('unknown command "greet"');
  });

  test("a misspelt setting of the plugin whose command runs is refused, naming the settings it reads", async () => {
    const dir = folder({ "greeter.ts": greeter });
    await expect(cli(["greet", "ada"], { VITRIN_PLUGIN_DIRS: dir, VITRIN_PLUGIN_GREETER_TIME: "2" })).rejects.toThrow(
      "unknown setting VITRIN_PLUGIN_GREETER_TIME: plugin payment-greeter declares no such setting (it reads VITRIN_PLUGIN_GREETER_TIMES; vitrin plugins list shows every plugin's)",
    );
  });

  test("a plugin command that begins with one of vitrin's own commands is refused at load", async () => {
    const clash = greeter.replace('words: ["greet"]', 'words: ["accounts", "list"]');
    await expect(loadPluginFolders([folder({ "clash.ts": clash })], builtinPlugins())).rejects.toThrow(
      'plugin payment-greeter adds the command "accounts list", but "accounts" is one of vitrin\'s own commands',
    );
  });
});

describe("vitrin plugins list", () => {
  test("lists the built-in and folder plugins, which one each slot uses, and the settings and commands of each", async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      const env = { VITRIN_LOG_LEVEL: "silent", VITRIN_DATA_DIR: tempDir(), VITRIN_PLUGIN_DIRS: EXAMPLES, VITRIN_STORAGE: "memory" };
      expect(await run(["plugins", "list", "--json"], builtinPlugins(), env)).toBe(0);
    } finally {
      console.log = log;
    }
    const { data } = JSON.parse(lines.join("\n")) as { data: { id: string; in_use: boolean; source: string; settings: { env: string; default: string }[]; commands: string[] }[] };
    const byId = new Map(data.map((p) => [p.id, p]));
    const memory = byId.get("storage-memory")!;
    expect(memory.in_use).toBe(true);
    expect(memory.source).toStartWith(EXAMPLES);
    expect(memory.settings.map((x) => x.env)).toContain("VITRIN_PLUGIN_MEMORY_MAX_BYTES");
    expect(byId.get("storage-local")).toMatchObject({ in_use: false, source: "built-in" });
    expect(byId.get("renderer-ffmpeg")?.in_use).toBe(true);
    expect(byId.get("background-removal-isnet")?.commands).toContain("vitrin models install [--json]");
    expect(byId.get("payment-sandbox")?.settings.map((x) => x.env)).toContain("VITRIN_PLUGIN_SANDBOX_SECRET");
  });
});
