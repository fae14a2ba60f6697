// The Studio's browser-free logic behind the shop-owner trial's fixes: the video form's kept draft, the cost estimate
// that stays while a field is invalid, and transaction descriptions read as links (the last with a service of its own,
// to read what the server writes). Download names are the server's now: test/video-downloads.test.ts.
import { describe, expect, test } from "bun:test";
import { creditsShort, estimateAnswered, estimateStarted, NO_ESTIMATE } from "../studio/src/pages/video-estimate-state";
import { clearDraft, fitDraft, lastDraftProduct, loadDraft, saveDraft, type Draft, type DraftStore } from "../studio/src/pages/video-draft";
import { asProblem } from "../studio/src/problems";
import { descriptionParts, videoLabels } from "../studio/src/i18n/transactions";
import { productPhoto, startService } from "./helpers";

describe("the cost estimate while a field is invalid", () => {
  const cost = { credits: 3, available: 2, sufficient: false };
  const invalid = asProblem({
    error: "Validation failed",
    code: "validation_failed",
    message: "user_prompt.headline: too long",
    details: [{ field: "user_prompt.headline", message: "must be at most 40 characters" }],
  });

  test("a refused field keeps the last cost as the last valid input's, through further refusals", () => {
    const estimated = estimateAnswered(NO_ESTIMATE, cost, null);
    expect(estimated).toMatchObject({ credits: 3, last: null, problem: null });
    const refused = estimateAnswered(estimated, null, invalid);
    expect(refused).toMatchObject({ credits: null, last: 3, problem: invalid });
    expect(estimateAnswered(refused, null, invalid).last).toBe(3);
    // It is not the form's cost: it holds nothing back.
    expect(creditsShort(refused)).toBeNull();
  });

  test("the next good answer replaces it", () => {
    const refused = estimateAnswered(estimateAnswered(NO_ESTIMATE, cost, null), null, invalid);
    expect(estimateAnswered(refused, { credits: 1, available: 2, sufficient: true }, null)).toMatchObject({ credits: 1, last: null });
  });

  test("another template drops the last cost, as soon as its estimate starts and in its refusal", () => {
    const refused = estimateAnswered(estimateAnswered(NO_ESTIMATE, cost, null, "clean-card"), null, invalid, "clean-card");
    expect(refused.last).toBe(3);
    expect(estimateStarted(refused, "clean-card")).toMatchObject({ loading: true, last: 3 });
    expect(estimateStarted(refused, "feature-split")).toMatchObject({ loading: true, last: null });
    // Refused in another template straight from a cost of Clean card: that cost is not on show as the last valid one.
    expect(estimateAnswered(estimateAnswered(NO_ESTIMATE, cost, null, "clean-card"), null, invalid, "feature-split").last).toBeNull();
  });

  test("a refusal of no field (a premium template) drops the last cost: it is not what this form would pay", () => {
    const forbidden = asProblem({ error: "Forbidden", code: "forbidden", message: "premium template" });
    expect(estimateAnswered(estimateAnswered(NO_ESTIMATE, cost, null), null, forbidden).last).toBeNull();
  });
});

/** A sessionStorage of a Map, as the tab's would hold the drafts. */
function memoryStore(): DraftStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v), removeItem: (k) => void data.delete(k) };
}

describe("the video form's draft", () => {
  const draft: Draft = { templateId: "clean-card", language: "tr", format: "4:5", formatPicked: true, music: "auto", values: { headline: "Yeni" } };

  test("kept per account and product, the product worked on last remembered", () => {
    const store = memoryStore();
    saveDraft(store, "acct_a", "prod_1", draft);
    saveDraft(store, "acct_a", "prod_2", { ...draft, values: { headline: "Other" } });
    expect(loadDraft(store, "acct_a", "prod_1")).toEqual(draft);
    expect(loadDraft(store, "acct_a", "prod_2")?.values.headline).toBe("Other");
    expect(lastDraftProduct(store, "acct_a")).toBe("prod_2");
    // Another account signed in in the same tab sees none of them.
    expect(loadDraft(store, "acct_b", "prod_1")).toBeNull();
    expect(lastDraftProduct(store, "acct_b")).toBeNull();
  });

  test("cleared when its video is created; the others stay", () => {
    const store = memoryStore();
    saveDraft(store, "acct_a", "prod_1", draft);
    saveDraft(store, "acct_a", "prod_2", draft);
    clearDraft(store, "acct_a", "prod_2");
    expect(loadDraft(store, "acct_a", "prod_2")).toBeNull();
    expect(lastDraftProduct(store, "acct_a")).toBeNull();
    expect(loadDraft(store, "acct_a", "prod_1")).toEqual(draft);
    clearDraft(store, "acct_a", "prod_1");
    expect(store.data.size).toBe(0);
  });

  test("at most 20 products' drafts: the oldest goes", () => {
    const store = memoryStore();
    for (let i = 0; i < 22; i++) saveDraft(store, "acct_a", `prod_${i}`, draft);
    expect(loadDraft(store, "acct_a", "prod_0")).toBeNull();
    expect(loadDraft(store, "acct_a", "prod_1")).toBeNull();
    expect(loadDraft(store, "acct_a", "prod_2")).toEqual(draft);
    expect(loadDraft(store, "acct_a", "prod_21")).toEqual(draft);
  });

  test("what is not a draft (unreadable, another shape) reads as none; storage that throws loses nothing but the draft", () => {
    const store = memoryStore();
    store.setItem("vitrin.studio.videoDrafts.acct_a", "{not json");
    expect(loadDraft(store, "acct_a", "prod_1")).toBeNull();
    store.setItem("vitrin.studio.videoDrafts.acct_a", JSON.stringify({ last: "prod_1", drafts: { prod_1: { templateId: 3 } } }));
    expect(loadDraft(store, "acct_a", "prod_1")).toBeNull();
    expect(lastDraftProduct(store, "acct_a")).toBeNull();
    const full: DraftStore = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); }, removeItem: () => undefined };
    expect(() => saveDraft(full, "acct_a", "prod_1", draft)).not.toThrow();
  });

  test("fitted to what the form offers now: a template, language, format or track gone falls back", () => {
    const offered = { templates: [{ id: "clean-card", languages: ["en", "tr"] }, { id: "bold", languages: ["en"] }], music: [{ id: "track-1" }], formats: ["9:16", "4:5", "1:1", "16:9"] };
    expect(fitDraft(draft, offered)).toEqual(draft);
    expect(fitDraft({ ...draft, templateId: "bold" }, offered).language).toBe("");
    expect(fitDraft({ ...draft, templateId: "gone" }, offered)).toMatchObject({ templateId: "", language: "", values: { headline: "Yeni" } });
    expect(fitDraft({ ...draft, format: "3:2" }, offered)).toMatchObject({ format: "9:16", formatPicked: false });
    expect(fitDraft({ ...draft, music: "track-9" }, offered).music).toBe("auto");
    expect(fitDraft({ ...draft, music: "track-1" }, offered).music).toBe("track-1");
    // The tracks not known yet (a form shown before they loaded): the draft's track is kept.
    expect(fitDraft({ ...draft, music: "track-9" }, { ...offered, music: [] }).music).toBe("track-9");
  });
});

describe("a video's transactions read as links to it", () => {
  test("its cost and its refund, as the server writes them, link to the video, named by product and template", async () => {
    const t = await startService();
    let written: string[];
    let id: string;
    try {
      const { token } = await t.newAccount({ credits: 5 });
      const image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 320, 240)).toString("base64")}`;
      const product = await t.json("POST", "/v1/products", { token, body: { name: "Stoneware mug", image_url: image, dekupe: false } });
      const video = await t.json("POST", "/v1/videos", { token, body: { product_id: product.body.id, template_id: "clean-card", user_prompt: {} } });
      expect(video.status).toBe(202);
      id = video.body.id;
      // The product gone before its render: the video fails at once (product_missing) and its credit comes back.
      expect((await t.json("DELETE", `/v1/products/${product.body.id}`, { token })).status).toBe(200);
      await t.runJobs();
      written = (await t.json("GET", "/v1/balance/transactions", { token })).body.data.map((x: { description: string }) => x.description);
    } finally {
      await t.close();
    }
    // The test's clock stands still: rows of one moment come in id order, so each is found by its words.
    const usage = written.find((d) => d.startsWith("Video of"));
    const refund = written.find((d) => d.startsWith("Refund"));
    expect(written).toHaveLength(3);
    const link = { href: `/videos/${id}`, label: "Stoneware mug (Clean card)" };
    expect(descriptionParts(usage!, "en", new Map())).toEqual(["Video of ", link]);
    expect(descriptionParts(usage!, "tr", new Map())).toEqual([link, " videosu"]);
    const labels = videoLabels(written);
    expect(descriptionParts(refund!, "en", labels)).toEqual(["Refund for a failed video: ", link]);
    expect(descriptionParts(refund!, "tr", labels)).toEqual(["Başarısız bir video için iade: ", link]);
    // Its cost on another page: the refund is one link saying what it is; no id is ever shown.
    expect(descriptionParts(refund!, "en", new Map())).toEqual([{ href: `/videos/${id}`, label: "Refund for a failed video" }]);
    // Two such refunds read the same: a screen reader hears the transaction's date after the link's words.
    expect(descriptionParts(refund!, "en", new Map(), "Nov 26, 2026, 9:14 PM")).toEqual([
      { href: `/videos/${id}`, label: "Refund for a failed video", hidden: " (Nov 26, 2026, 9:14 PM)" },
    ]);
    // The template named in the interface's language (the Balance page passes the catalogue's translations).
    const turkish = (english: string) => ({ "Clean card": "Sade kart" })[english] ?? english;
    const inTurkish = { href: `/videos/${id}`, label: "Stoneware mug (Sade kart)" };
    expect(descriptionParts(usage!, "tr", new Map(), "", turkish)).toEqual([inTurkish, " videosu"]);
    expect(descriptionParts(refund!, "tr", videoLabels(written, turkish))).toEqual(["Başarısız bir video için iade: ", inTurkish]);
  }, 60_000);

  test("any other description is its text, in the interface's language", () => {
    expect(descriptionParts("Top-up of 20.00 USD", "tr", new Map())).toEqual(["20.00 USD kredi yüklemesi"]);
    expect(descriptionParts("Video of my own making", "en", new Map())).toEqual(["Video of my own making"]);
  });
});
