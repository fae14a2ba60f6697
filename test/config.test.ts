// Configuration: defaults, validation that names the bad variable, plugin settings declared in their own folders, and
// the configuration table made from both (test/docs.test.ts keeps the one in docs/operations.md equal to it).
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { ConfigError, configTable, coreSettings, loadConfig, settingNames } from "../src/config";
import { PluginRegistry, readPluginSettings, definePlugin, integer } from "../src/plugins";
import { builtinPlugins } from "../plugins";
import isnet from "../plugins/background-removal-isnet";

/** Every setting name: the core's and each built-in plugin's. */
const allNames = () => [...settingNames, ...builtinPlugins().declaredSettings().flatMap((p) => p.settings.map((s) => s.env))];

describe("config", () => {
  test("sane defaults need no settings", () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.dataDir).toBe(resolve("./data"));
    expect(c.publicUrl).toBe("http://localhost:8080");
    expect(c.cdnUrl).toBe("http://localhost:8080/files");
    expect(c.databaseUrl).toBe(`sqlite:${resolve("./data/vitrin.db")}`);
    expect(c.adminToken).toBeNull();
    expect(c.allowPrivateNetworks).toBe(false);
    expect([c.storage, c.backgroundRemoval, c.renderer, c.payment]).toEqual(["local", "isnet", "ffmpeg", "manual"]);
  });

  test("the dekupe memory arena is on unless turned off, and reaches the ONNX Runtime session options", async () => {
    const { sessionOptions } = await import("../plugins/background-removal-isnet/runtime");
    const arena = (env: Record<string, string>) => readPluginSettings(isnet.settings, loadConfig(env)).memoryArena;
    expect(arena({})).toBe(true);
    expect(arena({ VITRIN_DEKUPE_MEMORY_ARENA: "false" })).toBe(false);
    expect(sessionOptions({ threads: 2, memoryArena: arena({ VITRIN_DEKUPE_MEMORY_ARENA: "false" }) }).enableCpuMemArena).toBe(false);
    expect(sessionOptions({ threads: 2 }).enableCpuMemArena).toBe(true);
    expect(() => arena({ VITRIN_DEKUPE_MEMORY_ARENA: "sometimes" })).toThrow(ConfigError);
  });

  test("the CDN URL follows the public URL", () => {
    const c = loadConfig({ VITRIN_PUBLIC_URL: "https://shop.example/" });
    expect(c.publicUrl).toBe("https://shop.example");
    expect(c.cdnUrl).toBe("https://shop.example/files");
  });

  test.each([
    ["VITRIN_PORT", "eighty"],
    ["VITRIN_PORT", "70000"],
    ["VITRIN_PUBLIC_URL", "ftp://x"],
    ["VITRIN_ALLOW_PRIVATE_NETWORKS", "maybe"],
    ["VITRIN_ADMIN_TOKEN", "short"],
    ["VITRIN_DATABASE_URL", "mysql://x"],
    ["VITRIN_STORAGE", "Local Disk"],
    ["VITRIN_LOG_LEVEL", "loud"],
  ])("%s=%s is refused with a message naming it", (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  test("a misspelt VITRIN_ variable is refused rather than ignored, once the plugins' settings are known", () => {
    expect(() => builtinPlugins().settings(loadConfig({ VITRIN_PROT: "80" }))).toThrow("unknown setting VITRIN_PROT");
    expect(() => builtinPlugins().settings(loadConfig({ VITRIN_S3_BUCKET: "media", VITRIN_MODEL_IDLE_MS: "5" }))).not.toThrow();
  });
});

describe("plugin settings", () => {
  test("the core keeps only core settings: the S3, model, Stripe, manual payment and ffmpeg ones are declared by their plugins", () => {
    const byPlugin = Object.fromEntries(builtinPlugins().declaredSettings().map((p) => [p.plugin, p.settings.map((s) => s.env)]));
    expect(byPlugin["storage-s3"]).toContain("VITRIN_S3_BUCKET");
    expect(byPlugin["background-removal-isnet"]).toEqual(["VITRIN_MODEL_DIR", "VITRIN_DEKUPE_THREADS", "VITRIN_DEKUPE_MEMORY_ARENA", "VITRIN_MODEL_IDLE_MS"]);
    expect(byPlugin["payment-stripe"]).toEqual(["VITRIN_STRIPE_SECRET_KEY", "VITRIN_STRIPE_WEBHOOK_SECRET", "VITRIN_STRIPE_API_URL"]);
    expect(byPlugin["renderer-ffmpeg"]).toEqual(["VITRIN_FFMPEG_PATH", "VITRIN_FFPROBE_PATH", "VITRIN_RENDER_THREADS"]);
    expect(byPlugin["payment-manual"]).toEqual(["VITRIN_MANUAL_PAYMENT_INSTRUCTIONS"]);
    const plugins = Object.values(byPlugin).flat();
    expect(plugins).toHaveLength(19);
    expect(settingNames.filter((n) => plugins.includes(n))).toEqual([]);
    expect(coreSettings.map((s) => s.env)).toEqual(settingNames);
  });

  test("a bad value of a plugin's setting stops the start with a message naming it, whichever plugin is chosen", async () => {
    const registry = builtinPlugins();
    const config = loadConfig({ VITRIN_STORAGE: "local", VITRIN_S3_REGION: "EU West", VITRIN_LOG_LEVEL: "silent" });
    expect(() => registry.settings(config)).toThrow(ConfigError);
    expect(() => registry.settings(config)).toThrow('VITRIN_S3_REGION="EU West": must be a region name');
  });

  test("a plugin's defaults may follow the core's settings", () => {
    const settings = readPluginSettings(isnet.settings, loadConfig({ VITRIN_DATA_DIR: "/srv/vitrin" }));
    expect(settings.modelDir).toBe("/srv/vitrin/models/isnet");
    expect(settings.threads).toBeGreaterThanOrEqual(1);
    expect(readPluginSettings(isnet.settings, loadConfig({ VITRIN_MODEL_DIR: "/models/rmbg" })).modelDir).toBe("/models/rmbg");
  });

  test("a plugin may not declare a core setting, nor one another plugin declares", () => {
    const setting = (env: string) => ({ env, default: "1", doc: "x", parse: integer(0, 9) });
    const plugin = (name: string, env: string) => definePlugin({ slot: "payment", name, description: "", settings: { n: setting(env) }, create: () => ({}) as never });
    expect(() => new PluginRegistry().add(plugin("a", "VITRIN_PORT"))).toThrow("plugin payment-a declares VITRIN_PORT, a core setting");
    expect(() => new PluginRegistry().add(plugin("a", "VITRIN_A_N")).add(plugin("b", "VITRIN_A_N"))).toThrow(
      "plugin payment-b declares VITRIN_A_N, which plugin payment-a declares too",
    );
  });
});

describe("the configuration table", () => {
  test("lists the core's settings, then every built-in plugin's", () => {
    const table = configTable(builtinPlugins().declaredSettings());
    const names = [...table.matchAll(/^\| `(VITRIN_[A-Z0-9_]+)`/gm)].map((m) => m[1]);
    expect(names).toEqual(allNames());
    expect(table).toContain("| `VITRIN_S3_REGION` | `us-east-1` | Region requests to the bucket are signed for");
  });
});
