// source_box, crop and the attempts list with the real ISNet model: a real photo's tight cut-out knows its place in
// the photo, a crop "none" retry is photo-sized with the mask at that place, and both attempts stay listed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { installModel } from "../plugins/background-removal-isnet";
import { fetchStored, startImageHost, startService, storageKeyOf, tempDir, type ImageHost } from "./helpers";

const SLOW = 120_000;
let root: string;
let modelDir: string;
let host: ImageHost;

beforeAll(async () => {
  root = tempDir("vitrin-isnet-placement-");
  modelDir = join(root, "isnet");
  await installModel(modelDir);
  host = startImageHost({ "/coffee.jpg": { body: new Uint8Array(readFileSync(join(import.meta.dir, "fixtures", "photos", "coffee.jpg"))), type: "image/jpeg" } });
}, SLOW);

afterAll(() => {
  host.close();
  rmSync(root, { recursive: true, force: true });
});

async function alphaOf(res: Response) {
  const { data, info } = await sharp(new Uint8Array(await res.arrayBuffer())).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, at: (x: number, y: number) => data[(y * info.width + x) * 4 + 3] };
}

test("a subject crop knows its place in the photo; a crop none retry is photo-sized; both attempts stay listed", async () => {
  const t = await startService({ VITRIN_BACKGROUND_REMOVAL: "isnet", VITRIN_MODEL_DIR: modelDir, VITRIN_DEKUPE_THREADS: "2" });
  try {
    const { token } = await t.newAccount();
    const meta = await sharp(readFileSync(join(import.meta.dir, "fixtures", "photos", "coffee.jpg"))).metadata();
    const c = await t.json("POST", "/v1/products", { token, body: { name: "Coffee", image_url: host.url("/coffee.jpg") } });
    await t.runJobs();
    const first = (await t.json("GET", `/v1/products/${c.body.id}/dekupe`, { token })).body;
    expect(first).toMatchObject({ status: "ready", crop: "subject" });
    const sb = first.source_box;
    // Inside the photo and smaller than it: the crop around the cup (its saucer comes within the crop's margin of the
    // photo's top edge, so the box may start at row 0; it is narrower than the photo).
    expect(sb.x).toBeGreaterThan(0);
    expect(sb.y).toBeGreaterThanOrEqual(0);
    expect(sb.x + sb.width).toBeLessThanOrEqual(meta.width!);
    expect(sb.y + sb.height).toBeLessThanOrEqual(meta.height!);
    expect(sb.width * sb.height).toBeLessThan(meta.width! * meta.height!);
    const tight = await alphaOf(await fetchStored(t, first.preview_url));
    // The PNG is the source box scaled to at most 1024 px: the same aspect.
    expect(Math.abs(tight.width / tight.height - sb.width / sb.height)).toBeLessThan(0.02);

    expect((await t.json("POST", `/v1/products/${c.body.id}/dekupe/retry`, { token, body: { crop: "none" } })).status).toBe(202);
    await t.runJobs();
    const second = (await t.json("GET", `/v1/products/${c.body.id}/dekupe`, { token })).body;
    expect(second).toMatchObject({ status: "ready", crop: "none", source_box: { x: 0, y: 0, width: meta.width, height: meta.height } });
    const full = await alphaOf(await fetchStored(t, second.preview_url));
    expect([full.width, full.height]).toEqual([meta.width, meta.height]);
    // Above the first attempt's crop there is only background; the product's centre is solid.
    expect(full.at(Math.round(sb.x + sb.width / 2), Math.max(0, sb.y - 5))).toBeLessThan(8);
    const box = second.box;
    expect(full.at(Math.round(box.x + box.width / 2), Math.round(box.y + box.height / 2))).toBeGreaterThan(200);

    const list = (await t.json("GET", `/v1/products/${c.body.id}/dekupe/attempts`, { token })).body.data;
    expect(list.map((a: { crop: string; in_use: boolean }) => [a.crop, a.in_use])).toEqual([["subject", false], ["none", true]]);
    expect(list[0].method).not.toBe(list[1].method);
    expect(storageKeyOf(list[0].preview_url)).toBe(storageKeyOf(first.preview_url));
  } finally {
    await t.close();
  }
}, SLOW);
