// The Studio's browser-free logic: UI strings with values and plurals, money amounts typed in either language, the Turkish dictionary's key set, a 422's
// field problems matched to inputs, the user_prompt a template form makes from a real template's prompt_schema, and a
// cut-out attempt's hint in words.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { en } from "../studio/src/i18n/en";
import { tr } from "../studio/src/i18n/tr";
import { format, formatNumber } from "../studio/src/i18n/format";
import { formatAmount, parseAmount } from "../studio/src/i18n/amount";
import { fieldError, fieldErrors, unplacedErrors, asProblem } from "../studio/src/problems";
import { buildPrompt, fieldDescription, fieldLabel, kindOf, type Schema } from "../studio/src/pages/video-prompt";
import { hintOf, photoVersion } from "../studio/src/pages/product-hint-marks";
import { cropWords, hintWords } from "../studio/src/pages/product-attempt-words";
import { ADMIN_TOKEN, productPhoto, startService, type TestService } from "./helpers";

describe("studio strings", () => {
  test("Turkish has exactly the English keys, none left empty", () => {
    expect(Object.keys(tr).sort()).toEqual(Object.keys(en).sort());
    expect(Object.entries(tr).filter(([, v]) => v.trim() === "")).toEqual([]);
  });

  test("{n|one|other} picks the plural form by the number, and numbers are written the language's way", () => {
    expect(format(en["common.credits"], { n: 1 }, "en")).toBe("1 credit");
    expect(format(en["common.credits"], { n: 3 }, "en")).toBe("3 credits");
    expect(format(en["product.attemptsLeft"], { n: 0 }, "en")).toBe("0 attempts left");
    expect(format(tr["common.credits"], { n: 1234 }, "tr")).toBe("1.234 kredi");
    expect(formatNumber(1234.5, "en")).toBe("1,234.5");
  });

  test("a value the string does not name is left out, and a missing value leaves its slot visible", () => {
    expect(format("Page {page}", { page: 2, other: "x" }, "en")).toBe("Page 2");
    expect(format("Page {page}", {}, "en")).toBe("Page {page}");
  });
});

describe("studio field errors", () => {
  const problem = asProblem({
    error: "Validation failed",
    code: "validation_failed",
    message: "user_prompt.headline: too long",
    details: [
      { field: "user_prompt.headline", message: "must be at most 40 characters" },
      { field: "/user_prompt/colors/primary", message: "must be a colour like #1a2b3c" },
      { field: "user_prompt.features.2", message: "must be at most 48 characters" },
      { field: "webhook_url", message: "must be https" },
    ],
  });

  test("each problem reaches its input, whichever way the API wrote the path", () => {
    const errors = fieldErrors(problem);
    expect(fieldError(errors, "user_prompt.headline")).toBe("must be at most 40 characters");
    expect(fieldError(errors, "user_prompt.colors.primary")).toBe("must be a colour like #1a2b3c");
    // A list item's problem belongs to the list's one input.
    expect(fieldError(errors, "user_prompt.features")).toBe("must be at most 48 characters");
    expect(fieldError(errors, "user_prompt.price")).toBeUndefined();
  });

  test("problems no input shows are listed rather than lost", () => {
    const shown = ["user_prompt.headline", "user_prompt.colors.primary", "user_prompt.features"];
    expect(unplacedErrors(fieldErrors(problem), shown)).toEqual(["webhook_url: must be https"]);
  });

  test("a body that is not a catalogue error is not taken for one", () => {
    expect(asProblem("<html>bad gateway</html>")).toBeNull();
    expect(asProblem({ status: 502 })).toBeNull();
  });
});

describe("studio template form", () => {
  let t: TestService;
  let schemas: Record<string, Schema>;

  beforeAll(async () => {
    t = await startService();
    const account = await t.newAccount({ credits: 5 });
    const res = await t.json("GET", "/v1/templates", { token: account.token });
    schemas = Object.fromEntries(res.body.data.map((tpl: { id: string; prompt_schema: Schema }) => [tpl.id, tpl.prompt_schema]));
  });
  afterAll(() => t.close());

  test("feature-split's fields become the controls they need", () => {
    const props = schemas["feature-split"]!.properties!;
    expect(kindOf(props.headline!)).toBe("text");
    expect(kindOf(props.price!)).toBe("numberOrText");
    expect(kindOf(props.features!)).toBe("list");
    expect(kindOf(props.colors!)).toBe("group");
  });

  test("every field description of the built-in templates has its Turkish; a description it does not know shows as written", () => {
    const untranslated: string[] = [];
    const walk = (schema: Schema) => {
      for (const field of Object.values(schema.properties ?? {})) {
        if (field.description && fieldDescription(field, "tr") === field.description) untranslated.push(field.description);
        walk(field);
      }
    };
    for (const schema of Object.values(schemas)) walk(schema);
    expect(untranslated).toEqual([]);
    expect(fieldDescription({ description: "A template's own words." }, "tr")).toBe("A template's own words.");
    expect(fieldDescription(schemas.showcase!.properties!.headline!, "en")).toBe(schemas.showcase!.properties!.headline!.description!);
  });

  test("the colours are named as colours in both languages; a template's own `text` field of words keeps its name", () => {
    const colour = { type: "string", pattern: "^#[0-9a-fA-F]{6}$" } as Schema;
    expect(["primary", "accent", "background", "text"].map((n) => fieldLabel(n, colour, "en"))).toEqual(["Main colour", "Accent colour", "Background", "Text colour"]);
    expect(fieldLabel("text", colour, "tr")).toBe("Metin rengi");
    expect(fieldLabel("colors", { type: "object" } as Schema, "en")).toBe("Colours");
    expect(fieldLabel("text", { type: "string" } as Schema, "en")).toBe("Text");
    expect(fieldLabel("text", { type: "string" } as Schema, "tr")).toBe("Text");
    expect(fieldLabel("call_to_action", { type: "string" } as Schema, "en")).toBe("Button text");
    // A template's own title for it wins.
    expect(fieldLabel("call_to_action", { type: "string", title: "Coupon text" } as Schema, "en")).toBe("Coupon text");
  });

  test("the form's values make a user_prompt the API takes: numbers as numbers, lines as a list, empty fields left out", async () => {
    const schema = schemas["feature-split"]!;
    const prompt = buildPrompt(schema, {
      headline: "Fresh roast",
      price: "12,5",
      currency: "",
      features: "Fair trade\n\n  Whole beans  \n",
      "colors.primary": "#112233",
      "colors.accent": "",
    });
    expect(prompt).toEqual({ headline: "Fresh roast", price: 12.5, features: ["Fair trade", "Whole beans"], colors: { primary: "#112233" } });
    expect(buildPrompt(schema, { price: "from 10 €" })).toEqual({ price: "from 10 €" });

    const account = await t.newAccount({ credits: 5 });
    const photo = await productPhoto();
    const form = new FormData();
    form.set("name", "Beans");
    form.set("image", new Blob([photo as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }), "beans.jpg");
    const created = await t.service.handle(
      new Request("http://vitrin.test/v1/products", { method: "POST", headers: { authorization: `Bearer ${account.token}` }, body: form }),
    );
    expect(created.status).toBe(201);
    const product = (await created.json()) as { id: string };
    const estimate = await t.json("POST", "/v1/videos/estimate", {
      token: account.token,
      body: { product_id: product.id, template_id: "feature-split", user_prompt: prompt, aspect_ratio: "9:16", music: "auto" },
    });
    expect(estimate.status).toBe(200);
    expect(estimate.body.credits).toBeGreaterThan(0);
  });
});

describe("studio cut-out hint", () => {
  let t: TestService;
  afterAll(() => t?.close());

  test("marks on the photo make a retry hint the API takes: the product point and the points to leave out", async () => {
    expect(hintOf([])).toBeUndefined();
    const marks = [
      { x: 10, y: 12, keep: false },
      { x: 320, y: 240, keep: true },
      ...Array.from({ length: 22 }, (_, i) => ({ x: i, y: 5, keep: false })),
    ];
    const hint = hintOf(marks)!;
    expect(hint.point).toEqual({ x: 320, y: 240 });
    expect(hint.exclude).toHaveLength(20);
    expect(hint.exclude![19]).toEqual({ x: 21, y: 5 });

    t = await startService();
    const account = await t.newAccount({ credits: 1 });
    const form = new FormData();
    form.set("name", "Disc");
    form.set("image", new Blob([(await productPhoto()) as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }), "disc.jpg");
    const created = await t.service.handle(
      new Request("http://vitrin.test/v1/products", { method: "POST", headers: { authorization: `Bearer ${account.token}` }, body: form }),
    );
    const product = (await created.json()) as { id: string };
    await t.runJobs();
    const retry = await t.json("POST", `/v1/products/${product.id}/dekupe/retry`, { token: account.token, body: { crop: "subject", hint } });
    expect(retry.status).toBe(202);
    await t.runJobs();
    const leaveOutOnly = await t.json("POST", `/v1/products/${product.id}/dekupe/retry`, {
      token: account.token,
      body: { hint: hintOf([{ x: 5, y: 5, keep: false }]) },
    });
    expect(leaveOutOnly.status).toBe(202);
  });
});

describe("studio attempts in words, and the photo kept marks belong to", () => {
  test("a hint reads as its parts, singular or plural, in both languages; no hint (or an empty one) is no marks", () => {
    expect([hintWords(null, "en"), hintWords({}, "en"), hintWords({ exclude: [] }, "tr")]).toEqual(["No marks", "No marks", "İşaret yok"]);
    expect(hintWords({ point: { x: 1, y: 2 } }, "en")).toBe("1 on the product");
    expect(hintWords({ exclude: [{}, {}, {}] }, "en")).toBe("3 to leave out");
    expect(hintWords({ box: {}, point: {}, exclude: [{}] }, "en")).toBe("A box round the product, 1 on the product, 1 to leave out");
    expect(hintWords({ box: {} }, "tr")).toBe("Ürünün çevresinde bir kutu");
    // The mark picker's own Turkish terms.
    expect(hintWords({ point: {}, exclude: [{}, {}] }, "tr")).toBe("1 ürünün üzerinde, 2 dışarıda kalacak");
    expect([cropWords("subject", "en"), cropWords("none", "tr")]).toEqual(["Around the product", "Fotoğrafın tamamı"]);
  });

  test("a photo's version is its address without the query (a presigned link's signature changes, its key does not)", () => {
    const signed = (query: string) => `https://bucket.s3.example/products/prod_1/original-abc.jpg?${query}`;
    expect(photoVersion(signed("X-Amz-Signature=1"))).toBe(photoVersion(signed("X-Amz-Signature=2")));
    expect(photoVersion("/files/products/prod_1/original-abc.jpg")).not.toBe(photoVersion("/files/products/prod_1/original-def.jpg"));
  });
});

describe("studio top-up amounts", () => {
  const minor = (text: string, lang: "en" | "tr") => {
    const read = parseAmount(text, lang);
    return read.ok ? read.minor : read.reason;
  };

  test("Turkish takes a comma or a dot before the cents and its own grouping; `25,50` is never 2550", () => {
    expect(["25,50", "25.50", "25,5", "₺ 25,50", "1.000,00", "1.000.000"].map((t) => minor(t, "tr"))).toEqual([2550, 2550, 2550, 2550, 100000, 100000000]);
  });

  test("English takes a dot before the cents and commas between thousands", () => {
    expect(["25.50", "10", "1,000", "1,234.50"].map((t) => minor(t, "en"))).toEqual([2550, 1000, 100000, 123450]);
  });

  test("what could mean two amounts is refused, not guessed; what is no amount is invalid", () => {
    expect([minor("1.000", "tr"), minor("1,234.50", "tr"), minor("25,50", "en"), minor("1.234,50", "en")]).toEqual(["ambiguous", "ambiguous", "ambiguous", "ambiguous"]);
    expect([minor("abc", "en"), minor("", "en"), minor("12,505", "tr"), minor("-5", "en")]).toEqual(["invalid", "invalid", "invalid", "invalid"]);
  });

  test("an amount is written back as the language writes it", () => {
    expect([formatAmount(123450, "tr"), formatAmount(1000, "tr"), formatAmount(123450, "en")]).toEqual(["1.234,50", "10,00", "1,234.50"]);
  });
});

describe("transaction descriptions", () => {
  test("the server's own ledger texts read in Turkish; an operator's own text stays as written", async () => {
    const { transactionText } = await import("../studio/src/i18n/transactions");
    // Each as the server writes it (src/accounts/records.ts, src/billing/top-ups.ts).
    const t = await startService();
    try {
      const a = await t.newAccount({ credits: 3 });
      await t.json("POST", `/v1/admin/accounts/${a.id}/credits`, { token: ADMIN_TOKEN, body: { amount: 2 } });
      const written = (await t.json("GET", "/v1/balance/transactions", { token: a.token })).body.data.map((x: { description: string }) => x.description);
      expect(written.map((d: string) => transactionText(d, "tr")).sort()).toEqual(["Açılış kredisi", "Yöneticinin verdiği kredi"]);
    } finally {
      await t.close();
    }
    expect(transactionText("Top-up of 20.00 USD", "tr")).toBe("20.00 USD kredi yüklemesi");
    // A video's cost and refund read as a link to the video (studio-trial-logic.test.ts).
    expect(transactionText("Welcome bonus", "tr")).toBe("Welcome bonus");
    expect(transactionText("Opening credits", "en")).toBe("Opening credits");
  });
});
