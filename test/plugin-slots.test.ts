// Which plugin each slot uses comes from one table (SLOT_SETTINGS in src/plugins/registry.ts): start() boots the
// slots from it, in its order, and refuses a name nobody registered naming the slot's variable; `vitrin plugins list`
// marks the same plugins in use.
import { expect, test } from "bun:test";
import { loadConfig } from "../src/config";
import { createLogger } from "../src/kernel";
import { ConfigError, definePlugin, PluginRegistry, REQUIRED_METHODS, type Slot } from "../src/plugins";
import { SLOT_SETTINGS } from "../src/plugins/registry";
import { listPlugins } from "../src/plugins/cli";
import { tempDir } from "./helpers";

const SLOTS = Object.keys(REQUIRED_METHODS) as Slot[];

/** Plugins "a" and "b" for every slot, each noting in `booted` when it starts. */
function registry(booted: string[]): PluginRegistry {
  const reg = new PluginRegistry();
  for (const slot of SLOTS) {
    for (const name of ["a", "b"]) {
      const methods = Object.fromEntries(REQUIRED_METHODS[slot].map((m) => [m, () => {}]));
      reg.add(definePlugin({ slot, name, description: "", create: () => ({ ...methods, slot, name, init: async () => void booted.push(`${slot}-${name}`) }) as never }));
    }
  }
  return reg;
}

/** A configuration choosing `name` for every slot (or `others` for the slots it names). */
function config(name: string, others: Record<string, string> = {}) {
  const env: Record<string, string> = { VITRIN_DATA_DIR: tempDir(), VITRIN_LOG_LEVEL: "silent" };
  for (const variable of ["VITRIN_STORAGE", "VITRIN_BACKGROUND_REMOVAL", "VITRIN_RENDERER", "VITRIN_PAYMENT"]) env[variable] = others[variable] ?? name;
  return loadConfig(env);
}

const start = (reg: PluginRegistry, cfg: ReturnType<typeof config>) =>
  reg.start({ config: cfg, logger: createLogger("silent"), env: {}, templates: {} as never });

test("every slot has its setting in the table, and start() boots each slot's chosen plugin in the table's order", async () => {
  expect(Object.keys(SLOT_SETTINGS).sort()).toEqual([...SLOTS].sort());
  const booted: string[] = [];
  const plugins = await start(registry(booted), config("b"));
  expect(booted).toEqual(Object.keys(SLOT_SETTINGS).map((slot) => `${slot}-b`));
  expect((plugins.backgroundRemoval as unknown as { name: string }).name).toBe("b");
  await plugins.close();
});

test("plugins list marks in use the plugins start() boots", async () => {
  const booted: string[] = [];
  const cfg = config("a", { VITRIN_RENDERER: "b", VITRIN_PAYMENT: "b" });
  const reg = registry(booted);
  await (await start(reg, cfg)).close();
  let listed: { data: { id: string; in_use: boolean }[] } = { data: [] };
  await listPlugins(reg, cfg, { json: true, print: (_human, data) => void (listed = data as typeof listed) });
  expect(listed.data.filter((p) => p.in_use).map((p) => p.id)).toEqual(booted);
  expect(booted).toEqual(["storage-a", "background-removal-a", "renderer-b", "payment-b"]);
});

test.each(Object.entries({ storage: "VITRIN_STORAGE", "background-removal": "VITRIN_BACKGROUND_REMOVAL", renderer: "VITRIN_RENDERER", payment: "VITRIN_PAYMENT" }))(
  "a %s plugin nobody registered is refused at start naming %s",
  async (slot, variable) => {
    const booted: string[] = [];
    const refusal = start(registry(booted), config("a", { [variable]: "zz" }));
    await expect(refusal).rejects.toThrow(new ConfigError(`${variable}: unknown ${slot} plugin "zz"; available: a, b`));
  },
);

test("plugins list refuses a slot whose named plugin is not there, as start() does, instead of listing none in use", async () => {
  const cfg = config("a", { VITRIN_STORAGE: "shelf" });
  const listing = listPlugins(registry([]), cfg, { json: false, print: () => {} });
  await expect(listing).rejects.toThrow(new ConfigError('VITRIN_STORAGE: unknown storage plugin "shelf"; available: a, b'));
});
