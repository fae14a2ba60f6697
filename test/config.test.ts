// Configuration: defaults, validation that names the bad variable, and the README table kept in step.
import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { ConfigError, loadConfig, settingNames } from "../src/config";

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

  test("the dekupe memory arena is off unless turned on, and reaches the ONNX Runtime session options", async () => {
    const { sessionOptions } = await import("../plugins/background-removal-isnet/runtime");
    expect(loadConfig({}).dekupeMemoryArena).toBe(false);
    const on = loadConfig({ VITRIN_DEKUPE_MEMORY_ARENA: "true" });
    expect(on.dekupeMemoryArena).toBe(true);
    expect(sessionOptions({ threads: 2, memoryArena: on.dekupeMemoryArena }).enableCpuMemArena).toBe(true);
    expect(sessionOptions({ threads: 2 }).enableCpuMemArena).toBe(false);
    expect(() => loadConfig({ VITRIN_DEKUPE_MEMORY_ARENA: "sometimes" })).toThrow(ConfigError);
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

  test("a misspelt VITRIN_ variable is refused rather than ignored", () => {
    expect(() => loadConfig({ VITRIN_PROT: "80" })).toThrow("VITRIN_PROT");
  });

  test("the README's configuration table lists every setting", async () => {
    const readme = await Bun.file(join(import.meta.dir, "..", "README.md")).text();
    for (const name of settingNames) expect(readme).toContain(`| \`${name}\``);
  });
});
