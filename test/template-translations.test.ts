// A template's name and description in other languages (meta.translations): GET /v1/templates and /v1/templates/:id
// answer in the language asked for with ?language= (its base: tr-TR reads tr), English where a template has no words
// in it, and list every translation; a malformed language is a 422; a template with a broken translation is refused
// at load, naming it; so is a meta value out of range, with the value given.
import { describe, expect, test } from "bun:test";
import { loadTemplates, templateWords } from "../src/templates";
import { defineTemplate, t as tb, type TemplateDefinition } from "../src/templates/api";
import { BUILTIN_TEMPLATES } from "../templates";
import { sharedService } from "./helpers";

const shared = sharedService();

const catalogue = async (query = "") => (await shared.t.json("GET", `/v1/templates${query}`, { token: shared.token })).body.data as any[];
const byId = (list: any[]) => new Map(list.map((tpl) => [tpl.id, tpl]));

describe("the catalogue in a language", () => {
  test("every built-in template has its name and description in each of the other six languages", async () => {
    for (const tpl of await catalogue()) {
      expect(Object.keys(tpl.translations).sort()).toEqual(["ar", "de", "en", "es", "fr", "ja", "tr"]);
      expect(tpl.translations.en).toEqual({ name: tpl.name, description: tpl.description });
      for (const [language, words] of Object.entries(tpl.translations) as [string, { name: string; description: string }][]) {
        if (language === "en") continue;
        expect(words.name.length).toBeGreaterThan(1);
        expect(words.name).not.toBe(tpl.name);
        expect(words.description.length).toBeGreaterThan(20);
        expect(words.description).not.toBe(tpl.description);
      }
    }
  });

  test("?language= gives name and description in it, by its base language; without it, English", async () => {
    const english = byId(await catalogue());
    expect(english.get("clean-card")).toMatchObject({ name: "Clean card", description: expect.stringMatching(/^A calm card/) });
    for (const query of ["?language=tr", "?language=tr-TR", "?language=TR"]) {
      const turkish = byId(await catalogue(query));
      expect(turkish.get("clean-card")).toMatchObject({ name: "Sade kart", description: expect.stringMatching(/^Mağazalar ve akışlar/) });
      expect(turkish.get("showcase").name).toBe("Vitrin");
      // Its picture in Turkish too; everything else is the same template (its prompt_schema's descriptions aside:
      // template-field-words.test.ts).
      expect(turkish.get("spotlight").preview_url).toBe(`${english.get("spotlight").preview_url}?language=tr`);
      const rest = (tpl: any) => ({ ...tpl, name: 0, description: 0, preview_url: 0, prompt_schema: 0 });
      expect(rest(turkish.get("spotlight"))).toEqual(rest(english.get("spotlight")));
    }
    const one = (await shared.t.json("GET", "/v1/templates/spotlight?language=ja", { token: shared.token })).body;
    expect(one).toMatchObject({ id: "spotlight", name: "スポットライト", translations: { tr: { name: "Spot ışığı" } } });
  });

  test("a language no template has words in reads English, its picture too", async () => {
    const portuguese = byId(await catalogue("?language=pt-BR"));
    expect(portuguese.get("clean-card")).toMatchObject({ name: "Clean card", description: expect.stringMatching(/^A calm card/) });
    expect(portuguese.get("clean-card").preview_url).toEndWith("/v1/templates/clean-card/preview");
  });

  test("a template without translations reads English in every language (templateWords, which downloads use too)", async () => {
    const plain = BUILTIN_TEMPLATES.find((d) => d.meta.id === "spotlight")!;
    const registry = await loadTemplates({ builtin: [defineTemplate({ ...plain, meta: { ...plain.meta, id: "plain", translations: undefined } })] });
    const info = registry.get("plain")!.info;
    expect(info.translations).toEqual({});
    for (const language of ["tr", "tr-TR", "ja", "en"]) expect(templateWords(info, language)).toEqual({ name: plain.meta.name, description: plain.meta.description });
  });

  test("a malformed language is a 422 naming it, on the list, on one template and on its preview alike", async () => {
    for (const path of ["/v1/templates?language=not%20a%20language", "/v1/templates/spotlight?language=x_y_z", "/v1/templates/spotlight/preview?language=xx_1!"]) {
      const res = await shared.t.json("GET", path, { token: shared.token });
      expect(res.status).toBe(422);
      expect(res.body.details).toEqual([{ field: "language", message: expect.stringContaining("language code (BCP 47)") }]);
    }
    // An empty one is too short on all three; any other query parameter is still refused.
    for (const path of ["/v1/templates", "/v1/templates/spotlight", "/v1/templates/spotlight/preview"]) {
      expect((await shared.t.json("GET", `${path}?language=`, { token: shared.token })).body.details).toEqual([{ field: "language", message: expect.stringContaining("at least 2") }]);
    }
    expect((await shared.t.json("GET", "/v1/templates?lang=tr", { token: shared.token })).status).toBe(422);
  });
});

describe("translations a template declares", () => {
  const base = BUILTIN_TEMPLATES.find((d) => d.meta.id === "spotlight")!;
  const withTranslations = (translations: unknown): TemplateDefinition =>
    defineTemplate({ ...base, meta: { ...base.meta, id: "translated", translations: translations as never }, prompt: tb.Object({}) });

  test("a translation without a description takes the English one; a language left undefined has none", async () => {
    const registry = await loadTemplates({ builtin: [withTranslations({ de: { name: "  Übersetzt  " }, fr: undefined })] });
    expect(registry.get("translated")!.info.translations).toEqual({ de: { name: "Übersetzt", description: base.meta.description } });
  });

  test.each([
    [[], "meta.translations must be an object of languages"],
    [{ "tr-TR": { name: "x" } }, 'meta.translations.tr-TR: a translation is keyed by a base language, lowercase and in its current code (tr, de, ja, he), not "tr-TR"'],
    [{ iw: { name: "x" } }, 'meta.translations.iw: a translation is keyed by a base language, lowercase and in its current code (tr, de, ja, he), not "iw"'],
    [{ und: { name: "x" } }, 'meta.translations.und: a translation is keyed by a base language, lowercase and in its current code (tr, de, ja, he), not "und"'],
    [{ en: { name: "x" } }, "meta.translations.en: English is meta.name and meta.description themselves"],
    [{ tr: "Sade kart" }, "meta.translations.tr must be { name, description? }"],
    [{ tr: null }, "meta.translations.tr must be { name, description? }"],
    [{ tr: { name: " " } }, "meta.translations.tr.name is missing"],
    [{ tr: { name: "x", description: 5 } }, "meta.translations.tr.description must be text"],
  ])("a template with translations %j is refused: %s", async (translations, message) => {
    await expect(loadTemplates({ builtin: [withTranslations(translations)] })).rejects.toThrow(`template builtin:translated: ${message}`);
  });
});

describe("a template's meta refused at load says the value it was given", () => {
  const base = BUILTIN_TEMPLATES.find((d) => d.meta.id === "clean-card")!;
  test.each([
    [{ duration: 90 }, "meta.duration must be 1 to 60 seconds, not 90"],
    [{ credits: 1.5 }, "meta.credits must be a whole number of at least 1, not 1.5"],
    [{ fps: 24.5 }, "meta.fps must be a whole number from 10 to 60, not 24.5"],
    [{ duration: 6, posterAt: 9 }, "meta.posterAt must fall inside the video (at least 0 and under its duration, 6 s), not 9"],
  ])("%j: %s", async (meta, message) => {
    const def = defineTemplate({ ...base, meta: { ...base.meta, id: "odd-meta", translations: undefined, ...meta } as never });
    await expect(loadTemplates({ builtin: [def] })).rejects.toThrow(`template builtin:odd-meta: ${message}`);
  });
});
