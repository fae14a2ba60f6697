// The Studio's browser-free logic behind the shop-owner trial's fixes: download names, the video form's kept draft,
// the cost estimate that stays while a field is invalid, and transaction descriptions read as links.
import { describe, expect, test } from "bun:test";
import { downloadHref, downloadName } from "../studio/src/pages/video-download";
import { creditsShort, estimateAnswered, NO_ESTIMATE } from "../studio/src/pages/video-estimate-state";
import { asProblem } from "../studio/src/problems";

describe("download names", () => {
  const video = { id: "vid_7Qx", productName: "Stoneware coffee cup", templateName: "Clean card", aspect: "9:16", language: "en" };

  test("a video downloads under its product, template, format and language", () => {
    expect(downloadName(video, "mp4")).toBe("Stoneware-coffee-cup_Clean-card_9x16_en.mp4");
    expect(downloadName({ ...video, productName: "Kahve fincanı", language: "tr" }, "jpg")).toBe("Kahve-fincanı_Clean-card_9x16_tr.jpg");
  });

  test("what a file system or a URL would take otherwise is left out, and a long product name is cut", () => {
    const name = downloadName({ ...video, productName: 'Mug: "A/B" 50% <off>?\u202e.', templateName: "..Card.." }, "mp4");
    expect(name).toBe("Mug-A-B-50-off_Card_9x16_en.mp4");
    expect(downloadName({ ...video, productName: "x".repeat(200) }, "mp4")).toBe(`${"x".repeat(60)}_Clean-card_9x16_en.mp4`);
  });

  test("nothing left of product and template: the video's id", () => {
    expect(downloadName({ ...video, productName: "???", templateName: "" }, "mp4")).toBe("vid_7Qx.mp4");
  });

  test("the link asks vitrin's file route for the name, but leaves a presigned link's query alone", () => {
    expect(downloadHref("http://h/files/videos/v/video.mp4", "Kahve fincanı.mp4")).toBe("http://h/files/videos/v/video.mp4?download=Kahve%20fincan%C4%B1.mp4");
    const signed = "https://bucket.s3/videos/v/video.mp4?X-Amz-Signature=abc";
    expect(downloadHref(signed, "a.mp4")).toBe(signed);
  });
});

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

  test("a refusal of no field (a premium template) drops the last cost: it is not what this form would pay", () => {
    const forbidden = asProblem({ error: "Forbidden", code: "forbidden", message: "premium template" });
    expect(estimateAnswered(estimateAnswered(NO_ESTIMATE, cost, null), null, forbidden).last).toBeNull();
  });
});
