// A video's lifecycle: DELETE /v1/videos/:id removes its files (never ledger rows) and leaves the record saying so;
// queued videos are refused with 409; a second DELETE answers the same; VITRIN_VIDEO_RETENTION_DAYS deletes old
// files from a recurring job driven by the manual clock.
import { afterEach, describe, expect, test } from "bun:test";
import { productPhoto, startService, storedKeys, type TestService } from "./helpers";
import { RETENTION_EVERY_MS, RETENTION_JOB } from "../src/videos";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

const DAY = 24 * 60 * 60 * 1000;

async function setup(env: Record<string, string> = {}) {
  t = await startService(env, { renderScale: 0.25 });
  const { token } = await t.newAccount({ credits: 50 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false } });
  const template = ((await t.json("GET", "/v1/templates", { token })).body.data as { id: string; premium: boolean }[]).find((x) => !x.premium)!.id;
  const create = async () => (await t.json("POST", "/v1/videos", { token, body: { template_id: template, product_id: product.body.id } })).body;
  return { token, create };
}

const transactions = async (token: string) => (await t.json("GET", "/v1/balance/transactions", { token })).body.data;

describe("DELETE /v1/videos/:id", () => {
  test("removes a completed video's files, keeps the record (null URLs, files_deleted_at) and every ledger row", async () => {
    const { token, create } = await setup();
    const video = await create();
    await t.runJobs();
    const done = (await t.json("GET", `/v1/videos/${video.id}`, { token })).body;
    expect(done.status).toBe("completed");
    expect(done.files_deleted_at).toBeNull();
    expect(await storedKeys(t, `videos/${video.id}/`)).toHaveLength(2);
    const ledger = await transactions(token);

    const t0 = t.clock.now();
    const res = await t.json("DELETE", `/v1/videos/${video.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: video.id, status: "completed", video_url: null, thumbnail_url: null, files_deleted_at: new Date(t0).toISOString() });
    expect(res.body.credits_used).toBe(done.credits_used);
    expect(await storedKeys(t, `videos/${video.id}/`)).toEqual([]);
    expect((await t.json("GET", `/v1/videos/${video.id}`, { token })).body).toEqual(res.body);
    expect(await transactions(token)).toEqual(ledger);

    // Again: the same answer, nothing else changes.
    t.clock.advance(1000);
    const again = await t.json("DELETE", `/v1/videos/${video.id}`, { token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  test("a queued video is refused with 409 and keeps rendering", async () => {
    const { token, create } = await setup();
    const video = await create();
    const res = await t.json("DELETE", `/v1/videos/${video.id}`, { token });
    expect(res.status).toBe(409);
    expect(res.body.video_status).toBe("queued");
    expect((await t.json("GET", `/v1/videos/${video.id}`, { token })).body.files_deleted_at).toBeNull();
  });

  test("a failed video (no files) can be deleted; its refund stays in the ledger", async () => {
    const { token, create } = await setup();
    const video = await create();
    await t.service.videos.fail(video.id, "render_failed", "test");
    const res = await t.json("DELETE", `/v1/videos/${video.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("failed");
    expect(res.body.files_deleted_at).toBeString();
    expect((await transactions(token)).map((x: { type: string }) => x.type)).toContain("refund");
  });

  test("another account's video, or none, is a 404", async () => {
    const { create } = await setup();
    const video = await create();
    const other = await t.newAccount();
    expect((await t.json("DELETE", `/v1/videos/${video.id}`, { token: other.token })).status).toBe(404);
    expect((await t.json("DELETE", "/v1/videos/vid_nothere", { token: other.token })).status).toBe(404);
  });
});

describe("VITRIN_VIDEO_RETENTION_DAYS", () => {
  test("an hourly job deletes the files of videos completed longer ago than the retention, and only those", async () => {
    const { token, create } = await setup({ VITRIN_VIDEO_RETENTION_DAYS: "2" });
    const old = await create();
    await t.runJobs();
    t.clock.advance(DAY);
    const young = await create();
    await t.runJobs();
    expect(await storedKeys(t, "videos/")).toHaveLength(4);

    // Two days and a bit after the first render: the next hourly run takes the old video's files only.
    t.clock.advance(DAY + RETENTION_EVERY_MS);
    await t.runJobs();
    expect(await storedKeys(t, `videos/${old.id}/`)).toEqual([]);
    expect(await storedKeys(t, `videos/${young.id}/`)).toHaveLength(2);
    const oldNow = (await t.json("GET", `/v1/videos/${old.id}`, { token })).body;
    expect(oldNow.video_url).toBeNull();
    expect(oldNow.files_deleted_at).toBe(new Date(t.clock.now()).toISOString());

    // The job queued its next run itself: a day later the young one goes too.
    t.clock.advance(DAY);
    await t.runJobs();
    expect(await storedKeys(t, "videos/")).toEqual([]);
    expect((await t.json("GET", `/v1/videos/${young.id}`, { token })).body.files_deleted_at).toBeString();
  });

  test("off by default: no retention job is queued and files stay", async () => {
    await setup();
    const { jobs } = t.service.db.schema;
    const queued = (await t.service.db.read.select().from(jobs)).filter((j) => j.kind === RETENTION_JOB);
    expect(queued).toEqual([]);
  });
});
