// Template authors' mistakes caught when a template folder (VITRIN_TEMPLATE_DIRS) is read, naming the template: a field
// helper given an object, a required prompt field, a text that is not a string, a build() that returns no `layers` array, and a layout broken in
// a format other than the template's own (the start-up check lays out every format with the sample copy in English);
// and the types an author gets from the plugin kit's package (@vitrin/plugin-kit/templates) catch some of them earlier.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkFolderTemplates } from "../plugins/renderer-ffmpeg/preview";
import { ConfigError } from "../src/config";
import { loadTemplates } from "../src/templates";
import { run } from "../src/main";
import { startService, tempDir } from "./helpers";
import { pluginProject, typecheck } from "./support/plugin-project";

const API = join(import.meta.dir, "..", "src/templates/api.ts");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vitrin-template-folder-check-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A folder holding one template (factory form) whose prompt and build() body are given; returns the folder and file. */
async function folderWith(name: string, prompt: string, body: string): Promise<{ folder: string; file: string }> {
  const folder = join(dir, name);
  const file = join(folder, `${name}.js`);
  await Bun.write(
    file,
    `export default ({ defineTemplate, t, fields }) => defineTemplate({
      meta: { id: "${name}", name: "${name}", description: "A test template", aspect: "1:1", duration: 4, credits: 1 },
      prompt: t.Object({ ${prompt} }),
      async build(ctx) {
        const bg = await ctx.svg('<rect width="' + ctx.width + '" height="' + ctx.height + '" fill="#203040"/>', ctx.width, ctx.height);
        ${body}
      },
    });`,
  );
  return { folder, file };
}

/** What the start-up check of a folder says (the error's message), or "started" when it passes. */
async function startUpCheck(folder: string): Promise<string> {
  const registry = await loadTemplates({ dirs: [folder] });
  return checkFolderTemplates(registry).then(
    () => "started",
    (e: Error) => `${e instanceof ConfigError ? "ConfigError" : "Error"}: ${e.message}`,
  );
}

describe("field helpers take a number", () => {
  test("fields.headline({ maxLength: 40 }) is refused at load, naming the file and saying to pass the number", async () => {
    const { folder, file } = await folderWith("object-length", "headline: fields.headline({ maxLength: 40 })", "return { background: bg, layers: [] };");
    await expect(loadTemplates({ dirs: [folder] })).rejects.toThrow(`template ${file} failed to load: fields.headline() takes the longest length as a whole number of at least 1, not {"maxLength":40}`);
  });

  test('in a module that imports the API, a count such as fields.features("4") is refused as it is imported', async () => {
    const folder = join(dir, "module-form");
    const file = join(folder, "features.ts");
    await Bun.write(file, `import { defineTemplate, fields, t } from ${JSON.stringify(API)};
export default defineTemplate({
  meta: { id: "features-string", name: "F", description: "A test template", aspect: "1:1", duration: 4, credits: 1 },
  prompt: t.Object({ features: fields.features("4" as unknown as number) }),
  build: () => ({ background: { path: "", width: 1, height: 1, w: 1, h: 1 }, layers: [] }),
});`);
    await expect(loadTemplates({ dirs: [folder] })).rejects.toThrow(`template ${file} failed to load: `);
    await expect(loadTemplates({ dirs: [folder] })).rejects.toThrow("fields.features() takes the most items as a whole number of at least 1, not \"4\"");
  });
});

describe("the form a folder template takes", () => {
  test("a template importing vitrin's source, as templates/README.md's built-in example does, is told the folder form", async () => {
    const folder = join(dir, "source-import");
    const file = join(folder, "my-ad.ts");
    await Bun.write(file, `import { defineTemplate } from "../src/templates/api";\nexport default defineTemplate({});\n`);
    const error = await loadTemplates({ dirs: [folder] }).then(() => null, (e: Error) => e.message);
    expect(error).toStartWith(`template ${file} failed to load:`);
    expect(error).toContain("default-export (api) => api.defineTemplate({ … }), with types from @vitrin/plugin-kit/templates");
  });

  test("a module exporting no template names both forms", async () => {
    const folder = join(dir, "no-template");
    const file = join(folder, "nothing.js");
    await Bun.write(file, "export default 42;\n");
    await expect(loadTemplates({ dirs: [folder] })).rejects.toThrow(
      `template ${file}: the module must default-export defineTemplate({ meta, prompt, build }), or, in a template folder, a function (api) => api.defineTemplate({ meta, prompt, build })`,
    );
  });
});

describe("prompt fields are optional", () => {
  test("a required field (a video may be asked with no user_prompt) is refused at load, naming it and the fix", async () => {
    const { folder, file } = await folderWith("required-field", "tagline: t.String(), headline: t.Optional(fields.headline(40))", "return { background: bg, layers: [] };");
    await expect(loadTemplates({ dirs: [folder] })).rejects.toThrow(
      `template ${file}: prompt field "tagline" must be optional (t.Optional, with a default drawn from the product): a video may be asked with no user_prompt`,
    );
  });

  test("every fields.* helper is optional as it comes, so a template using them all loads", async () => {
    const all = ["headline()", "subheadline()", "price()", "currency()", "callToAction()", "features()", "color()", "colors()"];
    const prompt = all.map((call, i) => `f${i}: fields.${call}`).join(", ");
    const { folder } = await folderWith("every-helper", prompt, "return { background: bg, layers: [] };");
    expect((await loadTemplates({ dirs: [folder] })).list().map((tpl) => tpl.info.id)).toContain("every-helper");
  });

  test("the same field made optional loads", async () => {
    const { folder } = await folderWith("optional-field", "tagline: t.Optional(t.String())", "return { background: bg, layers: [] };");
    expect((await loadTemplates({ dirs: [folder] })).list().map((tpl) => tpl.info.id)).toContain("optional-field");
  });
});

describe("build() mistakes stop the start, naming the template and what is wrong", () => {
  test("a text that is not a string names the layer", async () => {
    const { folder, file } = await folderWith("number-text", "", `const n = await ctx.text({ name: "headline", text: 42, size: 80, maxWidth: 600 });
        return { background: bg, layers: [{ name: "headline", image: n, x: ctx.width / 2, y: ctx.height / 2 }] };`);
    expect(await startUpCheck(folder)).toBe(
      `ConfigError: VITRIN_TEMPLATE_DIRS: the template ${file} failed to build with the sample product: ctx.text: the text of the layer "headline" must be a string, not the number 42 (in the 1:1 format)`,
    );
  });

  test("a button whose text is not a string names the button", async () => {
    const { folder } = await folderWith("undefined-button", "", `const b = await ctx.button({ name: "cta", text: ctx.prompt.cta, size: 40, color: "#000000", background: "#ffffff", maxWidth: 600 });
        return { background: bg, layers: [{ name: "cta", image: b, x: ctx.width / 2, y: ctx.height / 2 }] };`);
    expect(await startUpCheck(folder)).toContain(`ctx.button: the text of the layer "cta" must be a string, not undefined`);
  });

  test("a scene without a layers array (a typo: layerz) says so and what the scene has", async () => {
    const { folder } = await folderWith("layerz", "", "return { background: bg, layerz: [] };");
    expect(await startUpCheck(folder)).toContain(`build() returned a scene without a "layers" array (it has: background, layerz)`);
  });
});

describe("the layout in every format", () => {
  // Drawn for the square: its headline 200 px above the frame's foot is inside the square's safe area, and below the
  // 9:16 one (which ends 420 px above the foot, where the apps lay their captions).
  const LOW_HEADLINE = `const [product, title] = await Promise.all([
          ctx.productImage({ maxWidth: 360, maxHeight: 360, shadow: false }),
          ctx.text({ name: "headline", text: ctx.prompt.headline ?? ctx.product.name, size: 72, maxWidth: 800, color: "#ffffff" }),
        ]);
        return { background: bg, layers: [
          { name: "product", image: product, x: ctx.width / 2, y: ctx.safe.y + 220 },
          { name: "headline", image: title, x: ctx.width / 2, y: ctx.height - 200 },
        ] };`;

  test("a headline below the 9:16 safe area stops the start with a one-line ConfigError naming the file, the format and the problem", async () => {
    const { folder, file } = await folderWith("low-headline", "headline: fields.headline(40)", LOW_HEADLINE);
    const started = await startService({ VITRIN_TEMPLATE_DIRS: folder }).then(
      async (s) => {
        await s.close();
        return null;
      },
      (e: Error) => e,
    );
    expect(started).toBeInstanceOf(ConfigError);
    const message = (started as Error).message;
    expect(message).toStartWith(`VITRIN_TEMPLATE_DIRS: the template ${file} does not lay out in the 9:16 format with the sample product and copy in English: the layer "headline" leaves the safe area of the 9:16 format`);
    expect(message).toContain("(its text is product.name)");
    expect(message).not.toContain("\n");
  });

  test("a layer over the product is told to the author as a layer to move, not as text to shorten", async () => {
    const { folder } = await folderWith("over-product", "headline: fields.headline(40)", LOW_HEADLINE.replace("y: ctx.height - 200", "y: ctx.safe.y + 220"));
    const started = await startService({ VITRIN_TEMPLATE_DIRS: folder }).then(
      async (s) => {
        await s.close();
        return null;
      },
      (e: Error) => e,
    );
    const message = (started as Error).message;
    expect(message).toMatch(/the layer "headline" overlaps the product in the (9:16|4:5|1:1|16:9) format; move it or make room for it in this format\./);
    expect(message).not.toContain("shorten");
  });

  test("the same template with its headline inside every format's safe area starts", async () => {
    const { folder } = await folderWith("safe-headline", "headline: fields.headline(40)", LOW_HEADLINE.replace("y: ctx.height - 200", "y: ctx.safe.y + ctx.safe.h - 60"));
    expect(await startUpCheck(folder)).toBe("started");
  });
});

describe("types without a checkout", () => {
  test("a folder template typed with @vitrin/plugin-kit/templates type-checks; an object for a field helper's number and a scene without layers do not", async () => {
    const kitDir = tempDir("vitrin-kit-templates-");
    expect(await run(["plugins", "kit", kitDir], undefined, { VITRIN_DATA_DIR: kitDir })).toBe(0);
    const project = await pluginProject(join(kitDir, readdirSync(kitDir).find((f) => f.endsWith(".tgz"))!));
    const template = (id: string, headline: string, layers: string) => `import type { TemplateApi } from "@vitrin/plugin-kit/templates";
export default ({ defineTemplate, t, fields }: TemplateApi) => defineTemplate({
  meta: { id: "${id}", name: "${id}", description: "A test template", aspect: "9:16", duration: 8, credits: 1 },
  prompt: t.Object({ headline: ${headline} }),
  async build(ctx) {
    const title = await ctx.text({ text: ctx.prompt.headline ?? ctx.product.name, size: 96, maxWidth: ctx.safe.w });
    return { background: await ctx.svg("<rect/>", ctx.width, ctx.height), ${layers}: [{ image: title, x: ctx.width / 2, y: ctx.height / 2 }] };
  },
});
`;
    writeFileSync(join(project, "src", "good.ts"), template("good", "fields.headline(40)", "layers"));
    writeFileSync(join(project, "src", "bad.ts"), template("bad", "fields.headline({ maxLength: 40 })", "layerz"));
    const result = typecheck(project);
    rmSync(kitDir, { recursive: true, force: true });
    rmSync(join(project, ".."), { recursive: true, force: true });
    expect(result.output).not.toContain("good.ts");
    expect(result.output).toContain("src/bad.ts(4,");
    expect(result.output).toContain("Property 'layers' is missing");
  }, 60_000);
});
