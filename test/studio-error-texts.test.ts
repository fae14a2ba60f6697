// The Studio's words for the API's error catalogue: its own text for every code the server answers, in English and
// Turkish with the body's values, the server's message for a code it does not know, and 422 field messages still at
// their fields, and why a video failed. Browser-free: the bodies are the real catalogue's (src/kernel/errors.ts).
import { describe, expect, test } from "bun:test";
import { errors, type ApiError } from "../src/kernel";
import { DEKUPE_ERROR_CODES } from "../src/products";
import { dekupeErrorText, problemText } from "../studio/src/i18n/errors";
import { asProblem, fieldError, fieldErrors } from "../studio/src/problems";

/** One error of every catalogue entry, built as the server builds it. */
const catalogue: Record<keyof typeof errors, () => ApiError> = {
  badRequest: () => errors.badRequest("The request body is not valid JSON."),
  unauthorized: () => errors.unauthorized(),
  insufficientCredits: () => errors.insufficientCredits(12, 3),
  productLimit: () => errors.productLimit(5, 5),
  csrfFailed: () => errors.csrfFailed(),
  forbidden: () => errors.forbidden("The template showcase needs a premium account."),
  notFound: () => errors.notFound("product"),
  adminDisabled: () => errors.adminDisabled(),
  workerOnly: () => errors.workerOnly(),
  routeNotFound: () => errors.routeNotFound("GET", "/v1/nothing"),
  noPreviews: () => errors.noPreviews("none"),
  methodNotAllowed: () => errors.methodNotAllowed("PUT", "/v1/products"),
  conflict: () => errors.conflict("Only dead jobs can be re-driven; this one is running."),
  fileTooLarge: () => errors.fileTooLarge(),
  bodyTooLarge: () => errors.bodyTooLarge(1024 * 1024),
  unsupportedImage: () => errors.unsupportedImage(),
  validation: () => errors.validation([{ field: "name", message: "Expected string length less or equal to 100" }]),
  invalidField: () => errors.invalidField("image_url", "could not be fetched"),
  unsupportedLanguage: () => errors.unsupportedLanguage("language", "is not supported", ["en", "tr", "de"]),
  tooManyRequests: () => errors.tooManyRequests(30),
  internal: () => errors.internal("req_abc1"),
  unavailable: () => errors.unavailable(),
  databaseBusy: () => errors.databaseBusy(2),
  insufficientStorage: () => errors.insufficientStorage(),
};

const body = (e: ApiError) => JSON.parse(JSON.stringify(e.toJSON()));

describe("the Studio's error texts", () => {
  test("every catalogue error reads in Turkish in the Studio's own words, every value filled in", () => {
    const left: string[] = [];
    for (const [name, make] of Object.entries(catalogue)) {
      const err = make();
      const text = asProblem(body(err), "tr")!.message;
      if (text === err.message || /[{}]/.test(text)) left.push(`${name}: ${text}`);
    }
    expect(left).toEqual([]);
  });

  test("the body's values reach the text: credits, the product limit, the size in MB, the wait and the request id", () => {
    expect(asProblem(body(errors.insufficientCredits(12, 3)), "tr")!.message).toBe("Bunun için 12 kredi gerekiyor, bakiye ise 3.");
    expect(asProblem(body(errors.insufficientCredits(1, 0)), "en")!.message).toBe("This needs 1 credit, but the balance is 0.");
    expect(asProblem(body(errors.productLimit(5, 5)), "en")!.message).toContain("at most 5 products");
    expect(asProblem(body(errors.fileTooLarge()), "tr")!.message).toBe("Görsel 5 MB'tan büyük.");
    expect(asProblem(body(errors.tooManyRequests(30)), "tr")!.message).toContain("30 sn");
    expect(asProblem(body(errors.internal("req_abc1")), "en")!.message).toContain("req_abc1");
  });

  test("conflicts are told apart by their extra field; the English of a generic one is the server's own", () => {
    const retries = errors.conflict("All 3 dekupe retries are used up.", { retries_left: 0 });
    const running = errors.conflict("A background removal is already running.", { dekupe_status: "processing" });
    expect(asProblem(body(retries), "tr")!.message).toContain("denemelerinin hepsi kullanıldı");
    expect(asProblem(body(running), "tr")!.message).toContain("zaten sürüyor");
    const generic = errors.conflict("Only dead jobs can be re-driven; this one is running.");
    expect(asProblem(body(generic), "en")!.message).toBe(generic.message);
    expect(asProblem(body(errors.notFound("video")), "en")!.message).toBe("No such video.");
  });

  test("a code the Studio does not know, or a body missing a value its text names, keeps the server's message", () => {
    const unknown = { error: "Teapot", code: "im_a_teapot", message: "Short and stout." };
    expect(asProblem(unknown, "tr")!.message).toBe("Short and stout.");
    const bare = { error: "Insufficient credits", code: "insufficient_credits", message: "Not enough credits." };
    expect(asProblem(bare, "tr")!.message).toBe("Not enough credits.");
    expect(asProblem(unknown, "tr")!.server_message).toBe("Short and stout.");
  });

  test("a 422's field messages read in Turkish and still point at their fields; one it does not know stays as written", () => {
    const err = errors.validation([
      { field: "amount", message: "Expected number to be greater or equal to 1000" },
      { field: "name", message: "Expected string length less or equal to 100" },
      { field: "webhook_url", message: "resolves to a private address" },
    ]);
    const fields = fieldErrors(asProblem(body(err), "tr"));
    expect(fieldError(fields, "amount")).toBe("En az 1000 olmalı.");
    expect(fieldError(fields, "name")).toBe("En fazla 100 karakter olabilir.");
    expect(fieldError(fields, "webhook_url")).toBe("resolves to a private address");
    expect(fieldError(fieldErrors(asProblem(body(err), "en")), "amount")).toBe("Expected number to be greater or equal to 1000");
  });

  test("why a video failed reads in Turkish by its code; in English it is the server's own sentence", () => {
    const failure = { code: "product_image_missing", message: "The product's image is missing from storage." };
    expect(problemText(failure, "tr")).toBe("Ürünün görseli depoda bulunamadı.");
    expect(problemText(failure, "en")).toBe(failure.message);
    expect(problemText({ code: "renderer_exploded", message: "boom" }, "tr")).toBe("boom");
  });

  test("why a cut-out failed reads in Turkish for every code the server gives; an unknown code keeps the server's message", () => {
    const message = "Background removal failed: model file is damaged";
    for (const code of DEKUPE_ERROR_CODES) {
      const text = dekupeErrorText(code, message, "tr");
      expect([code, text === message]).toEqual([code, false]);
    }
    expect(dekupeErrorText("no_subject", message, "tr")).toStartWith("Dekupe edilecek bir ürün bulunamadı.");
    expect(dekupeErrorText("no_subject", message, "en")).toStartWith("No product was found to cut out.");
    // The plugin's own reason is the best English for a plugin fault.
    expect(dekupeErrorText("removal_failed", message, "en")).toBe(message);
    expect(dekupeErrorText("melted", message, "tr")).toBe(message);
    expect(dekupeErrorText(null, message, "tr")).toBe(message);
    expect(dekupeErrorText(null, null, "tr")).toBeNull();
  });
});

describe("field messages in Turkish", () => {
  test("the API's plain wordings and the outbound URL checks read in Turkish, with their numbers", async () => {
    const { fieldText } = await import("../studio/src/i18n/errors");
    const cases: [string, string][] = [
      ["must be at most 100 characters", "En fazla 100 karakter olabilir."],
      ["must be a whole number", "Tam sayı olmalı."],
      ["give at least one field to change", "Değiştirilecek en az bir alan verin."],
      ["must be a lowercase three-letter currency code, like usd", "Küçük harfli, üç harfli bir para birimi kodu olmalı (ör. usd)."],
      ["must be a colour like #1a2b3c", "#1a2b3c gibi bir renk olmalı."],
      ["has a host name that could not be resolved", "Alan adı çözümlenemedi."],
      ["is required", "Bu alan gerekli."],
      ["must be true or false", "Evet ya da hayır olmalı."],
      ["must be at least 1000", "En az 1000 olmalı."],
      ["is not a known query parameter", "Bilinmeyen bir sorgu parametresi."],
      ["must be a number from 0 to 1000000000, or a text of 1 to 24 characters", "0 ile 1000000000 arasında bir sayı ya da en fazla 24 karakterlik bir metin olmalı."],
      ["must be more than price (40): it is the price before the discount", "Fiyattan (40) yüksek olmalı: indirimden önceki fiyattır."],
    ];
    for (const [en, tr] of cases) expect([en, fieldText(en, "tr")]).toEqual([en, tr]);
    const blocked = "points to a private, local or reserved network address, which is not allowed (the server's operator can allow such addresses: VITRIN_WEBHOOK_ALLOW_HOSTS for these hosts, or VITRIN_ALLOW_PRIVATE_NETWORKS)";
    expect(fieldText(blocked, "tr")).toStartWith("Özel, yerel ya da ayrılmış bir ağ adresine gidiyor");
    expect(fieldText("must be a whole number", "en")).toBe("must be a whole number");
  });
});
