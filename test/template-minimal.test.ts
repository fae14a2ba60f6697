// Every built-in template lays out in every language it lists and every format with what a shop may send: no optional
// field at all, only a price, and the sample copy (prices; in the languages template-matrix.test.ts does not render).
// Its own words (a "sale" burst, a sticker's "now") must fit in every language, since a shop cannot shorten them. The
// layout check only (no ffmpeg): each case costs ~0.1 s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareRender, sampleCopy, writeSampleProduct, type SampleProduct } from "../plugins/renderer-ffmpeg";
import { ASPECTS, LANGUAGES, loadTemplates, type TemplateRegistry } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { inLanes } from "./support/lanes";

// The check uses no database or storage: the PostgreSQL + S3 pass would only lay out the same scenes again.
const run = process.env.VITRIN_TEST_DATABASE === "postgres" ? describe.skip : describe;

const MATRIX_LANGUAGES = ["en", "tr", "ar", "ja"];

let registry: TemplateRegistry;
let dir: string;
const products = new Map<string, SampleProduct>();

beforeAll(async () => {
  registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
  dir = mkdtempSync(join(tmpdir(), "vitrin-template-minimal-"));
  for (const lang of LANGUAGES) products.set(lang, await writeSampleProduct(join(dir, lang), lang));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

run("built-in templates with minimal prompts, in every listed language and format", () => {
  for (const def of BUILTIN_TEMPLATES) {
    const id = def.meta.id;
    test(`${id}: no field, only a price, and the sample copy lay out`, async () => {
      const tpl = registry.get(id)!;
      const properties = (tpl.promptSchema.properties ?? {}) as Parameters<typeof sampleCopy>[0];
      expect(tpl.info.languages).toEqual([...LANGUAGES]);
      const cases = tpl.info.languages.flatMap((lang) => {
        const sample = sampleCopy(properties, lang, "short");
        const prompts: [string, Record<string, unknown>][] = [["no field", {}]];
        if ("price" in properties) prompts.push(["only a price", { price: sample.price }]);
        // The sample copy in en, tr, ar and ja is rendered in full by template-matrix.test.ts.
        if (!MATRIX_LANGUAGES.includes(lang)) prompts.push(["sample copy", sample]);
        return ASPECTS.flatMap((aspect) => prompts.map(([what, prompt]) => ({ lang, aspect, what, prompt })));
      });
      const found = await inLanes(cases, async (c) => {
        const job = await prepareRender({
          definition: tpl.definition, product: products.get(c.lang)!, prompt: c.prompt, language: c.lang, aspect: c.aspect, scale: 0.25, layoutOnly: true,
          workDir: join(dir, `${id}-${c.lang}-${c.aspect.replace(":", "x")}-${c.what.replaceAll(" ", "-")}`),
        });
        return job.problems.map((p) => `${c.lang} ${c.aspect} ${c.what}: ${p.field}: ${p.message}`);
      }, 3);
      expect(found.flat()).toEqual([]);
    }, 120_000);
  }
});
