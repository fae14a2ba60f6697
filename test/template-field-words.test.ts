// The shared prompt fields' descriptions in the catalogue's language: GET /v1/templates?language= gives each template's
// prompt_schema with fields.headline() and the rest described in it (by its base language), the schema otherwise the
// same; a template's own wording stays as written; a language without field words reads English.
import { describe, expect, test } from "bun:test";
import { BUILTIN_STRINGS } from "../src/templates";
import { FIELD_LANGUAGES, fieldDescription, promptSchemaIn, type SharedField } from "../src/templates/field-words";
import { defineTemplate, fields, t as tb } from "../src/templates/api";
import { sharedService } from "./helpers";

const shared = sharedService();

const catalogue = async (query = "") => (await shared.t.json("GET", `/v1/templates${query}`, { token: shared.token })).body.data as any[];
const withoutDescriptions = (schema: unknown) => JSON.parse(JSON.stringify(schema, (k, v) => (k === "description" ? undefined : v)));

describe("prompt_schema in the catalogue's language", () => {
  test("?language=tr describes the shared fields in Turkish; everything but the descriptions is the English schema", async () => {
    const english = new Map((await catalogue()).map((tpl) => [tpl.id, tpl.prompt_schema]));
    for (const query of ["?language=tr", "?language=tr-TR"]) {
      for (const tpl of await catalogue(query)) {
        const props = tpl.prompt_schema.properties;
        expect(props.headline.description).toBe("Ana satır; boş bırakılırsa ürünün adı.");
        expect(props.call_to_action.description).toContain(`"${BUILTIN_STRINGS.tr[tpl.id === "minimal-luxe" ? "discover" : "shopNow"]}"`);
        expect(props.colors.description).toBe(fieldDescription("tr", "colors"));
        expect(withoutDescriptions(tpl.prompt_schema)).toEqual(withoutDescriptions(english.get(tpl.id)));
      }
    }
  });

  test("one template's answer gives the same words, and each field its own: the old price is not described as the price", async () => {
    const res = await shared.t.json("GET", "/v1/templates/showcase?language=de", { token: shared.token });
    expect(res.status).toBe(200);
    const props = res.body.prompt_schema.properties;
    expect(props.price.description).toBe(fieldDescription("de", "price"));
    expect(props.old_price.description).toBe(fieldDescription("de", "oldPrice"));
    expect(props.features.description).toBe("Kurze Verkaufsargumente; standardmäßig Formulierungen aus der Beschreibung.");
  });

  test("without ?language=, and in a language without field words, the descriptions are English", async () => {
    for (const query of ["", "?language=en-GB", "?language=pt-BR"]) {
      const props = (await catalogue(query)).find((tpl) => tpl.id === "flash-sale").prompt_schema.properties;
      expect(props.headline.description).toBe("Main line; defaults to the product name.");
      expect(props.old_price.description).toBe(fieldDescription("en", "oldPrice"));
    }
  });
});

describe("the field words", () => {
  test("every language describes all eight fields, none left English, the button's default in its own words", () => {
    const shared: SharedField[] = ["headline", "subheadline", "price", "oldPrice", "currency", "callToAction", "features", "colors"];
    expect(FIELD_LANGUAGES).toEqual(["en", "tr", "de", "fr", "es", "ar", "ja"]);
    for (const lang of FIELD_LANGUAGES) {
      for (const button of ["shopNow", "discover"] as const) expect(fieldDescription(lang, "callToAction", button)).toContain(BUILTIN_STRINGS[lang][button]);
      if (lang === "en") continue;
      for (const field of shared) {
        expect(fieldDescription(lang, field).length).toBeGreaterThan(10);
        expect(fieldDescription(lang, field)).not.toBe(fieldDescription("en", field));
      }
    }
  });

  test("a button that defaults to other words says which, in every language (minimal-luxe's Discover)", async () => {
    const english = (await shared.t.json("GET", "/v1/templates/minimal-luxe", { token: shared.token })).body.prompt_schema.properties.call_to_action;
    expect(english.description).toBe('Button text; defaults to "Discover" in the video\'s language.');
    const french = (await shared.t.json("GET", "/v1/templates/minimal-luxe?language=fr", { token: shared.token })).body.prompt_schema.properties.call_to_action;
    expect(french.description).toBe(fieldDescription("fr", "callToAction", "discover"));
    expect(french.description).toContain("Découvrir");
    // The type refuses it; a folder template in JavaScript is not type-checked, so the helper checks too.
    expect(() => fields.callToAction(20, "shop now" as never)).toThrow(/key of the built-in words/);
    // A phrase with a placeholder ("Only {price}") is no button's words.
    expect(() => fields.callToAction(20, "only" as never)).toThrow(/key of the built-in words/);
  });

  test("a template's own description, and the shared helpers' English, are told apart: only the shared ones change", () => {
    const def = defineTemplate({
      meta: { id: "own-words", name: "Own words", description: "Its own.", aspect: "1:1", duration: 3, credits: 1 },
      prompt: tb.Object({
        headline: fields.headline(30),
        tagline: tb.Optional(tb.String({ description: "A short line of the shop's own." })),
        extras: tb.Optional(tb.Object({ label: fields.callToAction() })),
      }),
      build: () => ({ layers: [] }) as any,
    });
    const schema = JSON.parse(JSON.stringify(def.prompt));
    const ja = promptSchemaIn(schema, "ja") as any;
    expect(ja.properties.headline.description).toBe(fieldDescription("ja", "headline"));
    expect(ja.properties.tagline.description).toBe("A short line of the shop's own.");
    expect(ja.properties.extras.properties.label.description).toBe(fieldDescription("ja", "callToAction"));
    expect(ja.properties.headline.maxLength).toBe(30);
    // The schema it was made from is left as it was.
    expect(schema.properties.headline.description).toBe(fieldDescription("en", "headline"));
    expect(promptSchemaIn(schema, "en")).toBe(schema);
  });
});
