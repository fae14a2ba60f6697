// The service with VITRIN_STORAGE=s3 against a real s3rver: product images land in the bucket, their links fetch,
// deleting the product empties the bucket, /readyz reports the bucket, and a rendered video is uploaded from disk.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { productPhoto, startImageHost, startService, type ImageHost, type TestService } from "./helpers";
import { startS3Server, type S3Server } from "./support/s3";

let s3: S3Server;
let host: ImageHost;
let photo: Uint8Array;
let t: TestService | undefined;

beforeAll(async () => {
  s3 = await startS3Server();
  photo = await productPhoto("jpeg");
  host = startImageHost({ "/mug.jpg": { body: photo, type: "image/jpeg" } });
});
afterAll(async () => {
  host?.close();
  await s3?.close();
});
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function serviceOnBucket(env: Record<string, string> = {}, bucket?: string) {
  const name = bucket ?? (await s3.newBucket());
  t = await startService({ ...s3.env(name), ...env }, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits: 20 });
  return { bucket: name, acct, t };
}

describe("VITRIN_STORAGE=s3", () => {
  test("a product's image is stored in the bucket, its presigned link serves it, and deleting the product removes it", async () => {
    const { bucket, acct, t } = await serviceOnBucket();
    const res = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false } });
    expect(res.status).toBe(201);
    const imageUrl = new URL(res.body.image_url);
    expect(`${imageUrl.origin}${imageUrl.pathname}`).toStartWith(`${s3.endpoint}/${bucket}/products/`);
    expect(imageUrl.searchParams.get("X-Amz-Expires")).toBe("86400");
    expect(await s3.keys(bucket)).toEqual([imageUrl.pathname.slice(`/${bucket}/`.length)]);

    const file = await fetch(imageUrl);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(photo))).toBe(true);
    // vitrin does not proxy the bucket: its own /files route has nothing.
    expect((await t.call("GET", `/files${imageUrl.pathname.slice(`/${bucket}`.length)}`)).status).toBe(404);

    expect((await t.json("DELETE", `/v1/products/${res.body.id}`, { token: acct.token })).status).toBe(200);
    expect(await s3.keys(bucket)).toEqual([]);
  });

  test("with a cut-out, all of the product's files (original, cut-out, mask) go to the bucket and all leave with it", async () => {
    const { bucket, acct, t } = await serviceOnBucket();
    const res = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg") } });
    expect(res.status).toBe(201);
    await t.runJobs();
    const product = (await t.json("GET", `/v1/products/${res.body.id}`, { token: acct.token })).body;
    expect(product.dekupe.status).toBe("ready");
    const keys = await s3.keys(bucket);
    expect(keys.length).toBe(3);
    for (const url of [product.image_url, product.original_image_url, product.dekupe.mask_url]) {
      const path = new URL(url).pathname.slice(`/${bucket}/`.length);
      expect(keys).toContain(path);
      expect((await fetch(url)).status).toBe(200);
    }
    await t.json("DELETE", `/v1/products/${res.body.id}`, { token: acct.token });
    expect(await s3.keys(bucket)).toEqual([]);
  });

  test("with VITRIN_CDN_URL set, links are plain public ones under it", async () => {
    const bucket = await s3.newBucket();
    // s3rver serves unsigned GETs, standing in for a public bucket (or a CDN in front of it).
    const { acct, t } = await serviceOnBucket({ VITRIN_CDN_URL: `${s3.endpoint}/${bucket}` }, bucket);
    const res = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false } });
    expect(res.body.image_url).toMatch(new RegExp(`^${s3.endpoint}/${bucket}/products/[^?]+\\.jpg$`));
    const file = await fetch(res.body.image_url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(photo))).toBe(true);
  });

  test("/readyz reports the bucket: ready when it exists, 503 naming it when it does not", async () => {
    await serviceOnBucket();
    const ready = await t!.json("GET", "/readyz");
    expect(ready.status).toBe(200);
    expect(ready.body.checks["storage-s3"]).toEqual({ ok: true });
    await t!.close();

    t = await startService(s3.env("bucket-that-was-never-made"));
    const notReady = await t.json("GET", "/readyz");
    expect(notReady.status).toBe(503);
    expect(notReady.body.checks["storage-s3"].ok).toBe(false);
    expect(notReady.body.checks["storage-s3"].detail).toContain('bucket "bucket-that-was-never-made"');
  });

  test("the service refuses to start without the bucket, naming the setting", async () => {
    const { VITRIN_S3_BUCKET: _, ...env } = s3.env("unused");
    await expect(startService(env)).rejects.toThrow("VITRIN_S3_BUCKET");
  });

  test("a rendered video and its thumbnail are uploaded to the bucket and fetchable", async () => {
    const { bucket, acct, t } = await serviceOnBucket();
    const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: host.url("/mug.jpg"), dekupe: false } });
    const templates = (await t.json("GET", "/v1/templates", { token: acct.token })).body.data as { id: string; premium: boolean }[];
    const template = templates.find((x) => !x.premium)!;
    const res = await t.json("POST", "/v1/videos", {
      token: acct.token,
      body: { template_id: template.id, product_id: product.body.id, user_prompt: {}, language: "en" },
    });
    expect(res.status).toBe(202);
    await t.runJobs();
    const video = (await t.json("GET", `/v1/videos/${res.body.id}`, { token: acct.token })).body;
    expect(video.status).toBe("completed");
    const keys = await s3.keys(bucket);
    expect(keys.filter((k) => k.startsWith(`videos/${res.body.id}/`)).length).toBe(2);
    const mp4 = await fetch(video.video_url);
    expect(mp4.status).toBe(200);
    expect(mp4.headers.get("content-type")).toBe("video/mp4");
    const bytes = new Uint8Array(await mp4.arrayBuffer());
    // An MP4 starts with an ftyp box.
    expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe("ftyp");
    expect((await fetch(video.thumbnail_url)).headers.get("content-type")).toBe("image/jpeg");
  }, 60_000);
});
