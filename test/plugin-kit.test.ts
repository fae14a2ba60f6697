// The plugin kit as an npm package (packages/plugin-kit, @vitrin/plugin-kit): current with the kit's sources, written
// by `vitrin plugins kit`, and good enough to type-check a plugin written against it, and to reject a wrong one.
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { run } from "../src/main";
import { generatePluginKit, KIT_DIR } from "../scripts/plugin-kit";
import { newReference, readReference } from "../examples/plugins/payment-banktransfer/src/reference";
import { pluginProject, typecheck } from "./support/plugin-project";
import { tempDir } from "./helpers";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Every file under `root` with its text, by its path below `root`. */
function filesOf(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out.set(relative(root, join(entry.parentPath, entry.name)), readFileSync(join(entry.parentPath, entry.name), "utf8"));
  }
  return out;
}

/** `vitrin plugins kit DIR`, run in process: the tarball it wrote. */
async function kitTarball(dir: string): Promise<string> {
  expect(await run(["plugins", "kit", dir], undefined, { VITRIN_DATA_DIR: dir })).toBe(0);
  const [tarball] = readdirSync(dir).filter((f) => f.endsWith(".tgz"));
  return join(dir, tarball!);
}

/** The files of a kit tarball, by their path inside the package. */
async function tarballFiles(tarball: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [path, file] of await new Bun.Archive(await Bun.file(tarball).bytes()).files()) {
    expect(path.startsWith("package/")).toBe(true);
    out.set(path.slice("package/".length), await file.text());
  }
  return out;
}

describe("the plugin kit package", () => {
  test("packages/plugin-kit is what scripts/plugin-kit.ts generates from the kit's sources today", () => {
    const fresh = tempDir("vitrin-kit-fresh-");
    dirs.push(fresh);
    generatePluginKit(fresh);
    const committed = filesOf(KIT_DIR);
    const generated = filesOf(fresh);
    const stale = [...new Set([...committed.keys(), ...generated.keys()])].filter((path) => path !== "README.md" && committed.get(path) !== generated.get(path));
    if (stale.length > 0) {
      throw new Error(`packages/plugin-kit is out of date with src/ (${stale.join(", ")}): run \`bun run scripts/plugin-kit.ts\` and commit packages/plugin-kit with the change`);
    }
    expect(committed.has("README.md")).toBe(true);
    const pkg = JSON.parse(committed.get("package.json")!);
    expect(pkg).toMatchObject({ name: "@vitrin/plugin-kit", version: JSON.parse(readFileSync(join(KIT_DIR, "..", "..", "package.json"), "utf8")).version });
    expect(Object.keys(pkg.dependencies)).toEqual(["@sinclair/typebox"]);
  });

  test("`vitrin plugins kit DIR` writes the package as an npm tarball, and keeps an existing one without --force", async () => {
    const dir = tempDir("vitrin-kit-cli-");
    dirs.push(dir);
    const tarball = await kitTarball(dir);
    expect(tarball).toBe(join(dir, `vitrin-plugin-kit-${JSON.parse(readFileSync(join(KIT_DIR, "package.json"), "utf8")).version}.tgz`));
    expect(await tarballFiles(tarball)).toEqual(filesOf(KIT_DIR));
    expect(await run(["plugins", "kit", dir], undefined, { VITRIN_DATA_DIR: dir })).toBe(1);
    expect(await run(["plugins", "kit", dir, "--force"], undefined, { VITRIN_DATA_DIR: dir })).toBe(0);
  });

  test("the example plugin type-checks against the installed kit; a storage without get() and a value import do not", async () => {
    const kitDir = tempDir("vitrin-kit-tgz-");
    const project = await pluginProject(await kitTarball(kitDir));
    dirs.push(kitDir, dirname(project));
    const good = typecheck(project);
    expect(good.output).toBe("");
    expect(good.code).toBe(0);

    writeFileSync(
      join(project, "src", "broken.ts"),
      `import type { PluginHost, StoragePlugin } from "@vitrin/plugin-kit";
export default (host: PluginHost) => host.definePlugin({ slot: "storage", name: "broken", description: "", create(): StoragePlugin {
  return { slot: "storage", name: "broken", async put() {}, async delete() {}, url: (key: string) => key };
} });`,
    );
    const missing = typecheck(project);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain("Property 'get' is missing");

    writeFileSync(join(project, "src", "broken.ts"), `import { definePlugin } from "@vitrin/plugin-kit";\nexport const d = definePlugin;\n`);
    const value = typecheck(project);
    expect(value.code).not.toBe(0);
    expect(value.output).toContain("'definePlugin' cannot be used as a value");
  }, 60_000);
});

describe("the example's transfer references", () => {
  test("read back as printed, in any case and spacing; one mistyped character or two swapped neighbours are refused", () => {
    for (let n = 0; n < 200; n++) {
      const ref = newReference();
      expect(ref).toMatch(/^VT-[3-9A-HJ-NP-Z]{4}-[3-9A-HJ-NP-Z]{5}$/);
      expect(readReference(ref)).toBe(ref);
      expect(readReference(ref.toLowerCase().replaceAll("-", " "))).toBe(ref);
      const chars = [...ref.replaceAll("-", "").slice(2)];
      const i = n % chars.length;
      const typo = [...chars];
      typo[i] = chars[i] === "A" ? "B" : "A";
      expect(readReference(typo.join(""))).toBeNull();
      const j = n % (chars.length - 1);
      if (chars[j] !== chars[j + 1]) {
        const swapped = [...chars];
        [swapped[j], swapped[j + 1]] = [swapped[j + 1]!, swapped[j]!];
        expect(readReference(swapped.join(""))).toBeNull();
      }
    }
  });
});
