// The Studio's browser-free logic behind the shop-owner trial's fixes: download names, the video form's kept draft,
// the cost estimate that stays while a field is invalid, and transaction descriptions read as links.
import { describe, expect, test } from "bun:test";
import { downloadHref, downloadName } from "../studio/src/pages/video-download";

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
