// A video's download links (download_url, thumbnail_download_url): named after its product, template, format and
// language by the link's answer (Content-Disposition), in its JSON, its list and its webhook; none before it completes
// or once its files are deleted; a deleted product's id stands in for its name. On local disk and, with
// VITRIN_TEST_STORAGE=s3, on the bucket's presigned links.
import { afterEach, describe, expect, test } from "bun:test";
import { attachment } from "../src/plugins";
import { downloadName } from "../src/videos/downloads";
import { fetchStored, productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

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
});

/** A service with a product "Stoneware coffee cup" and a way to order a Clean card video of it. */
async function setup() {
  t = await startService({}, { renderScale: 0.25 });
  const { token } = await t.newAccount({ credits: 50 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;
  const product = (await t.json("POST", "/v1/products", { token, body: { name: "Stoneware coffee cup", image_url: image, dekupe: false } })).body;
  const order = async (body: Record<string, unknown> = {}) =>
    (await t.json("POST", "/v1/videos", { token, body: { template_id: "clean-card", product_id: product.id, language: "en", ...body } })).body;
  const get = async (id: string) => (await t.json("GET", `/v1/videos/${id}`, { token })).body;
  return { token, product, order, get };
}

/** The Content-Disposition a stored file's link is answered with (the app's file route, or the bucket on S3). */
async function dispositionOf(url: string): Promise<string | null> {
  const res = await fetchStored(t, url);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.get("content-disposition");
}

describe("a video's download links", () => {
  test("a completed video's files download under its product's and template's name, from its JSON, list and webhook", async () => {
    const { token, order, get } = await setup();
    const ordered = await order({ webhook_url: "http://127.0.0.1:9/hook" });
    await t.runJobs();
    const video = await get(ordered.id);
    expect(video.status).toBe("completed");
    expect(await dispositionOf(video.download_url)).toBe(attachment("Stoneware-coffee-cup_Clean-card_9x16_en.mp4"));
    expect(await dispositionOf(video.thumbnail_download_url)).toBe(attachment("Stoneware-coffee-cup_Clean-card_9x16_en.jpg"));
    // The same bytes as the plain link, which itself stays a plain answer for the player.
    const [named, plain] = await Promise.all([fetchStored(t, video.download_url), fetchStored(t, video.video_url)]);
    expect(Buffer.from(await named.arrayBuffer()).equals(Buffer.from(await plain.arrayBuffer()))).toBe(true);
    expect(await dispositionOf(video.video_url)).toBeNull();

    const listed = (await t.json("GET", "/v1/videos", { token })).body.data[0];
    expect(listed.id).toBe(video.id);
    expect(await dispositionOf(listed.download_url)).toBe(attachment("Stoneware-coffee-cup_Clean-card_9x16_en.mp4"));
    const message = (await t.json("GET", `/v1/webhooks/deliveries?video_id=${video.id}`, { token })).body.data[0];
    expect(message.event).toBe("video.completed");
    expect(await dispositionOf(message.payload.data.download_url)).toBe(attachment("Stoneware-coffee-cup_Clean-card_9x16_en.mp4"));
  });

  test("nothing to download before the video completes, nor once its files are deleted", async () => {
    const { token, order, get } = await setup();
    const ordered = await order();
    expect(ordered).toMatchObject({ status: "queued", download_url: null, thumbnail_download_url: null });
    await t.runJobs();
    expect((await get(ordered.id)).download_url).toBeString();
    const deleted = (await t.json("DELETE", `/v1/videos/${ordered.id}`, { token })).body;
    expect(deleted).toMatchObject({ video_url: null, download_url: null, thumbnail_download_url: null });
  });

  test("a video in another language downloads under the template's name in that language (by its base: tr-TR reads tr)", async () => {
    const { order, get } = await setup();
    const [turkish, japanese] = [await order({ language: "tr-TR" }), await order({ language: "ja", aspect_ratio: "16:9" })];
    await t.runJobs();
    expect(await dispositionOf((await get(turkish.id)).download_url)).toBe(attachment("Stoneware-coffee-cup_Sade-kart_9x16_tr-TR.mp4"));
    expect(await dispositionOf((await get(japanese.id)).download_url)).toBe(attachment("Stoneware-coffee-cup_クリーンカード_16x9_ja.mp4"));
  });

  test("a video whose product was deleted since downloads under the product's id", async () => {
    const { token, product, order, get } = await setup();
    const ordered = await order({ aspect_ratio: "1:1" });
    await t.runJobs();
    expect((await t.json("DELETE", `/v1/products/${product.id}`, { token })).status).toBe(200);
    const video = await get(ordered.id);
    expect(video.status).toBe("completed");
    expect(await dispositionOf(video.download_url)).toBe(attachment(`${product.id}_Clean-card_1x1_en.mp4`));
  });
});
