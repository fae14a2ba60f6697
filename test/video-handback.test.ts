// A render handed back as its instance shuts down: the video reads queued again (not processing at the progress it
// stopped at), keeps its credits reserved, and a worker that takes the job up renders it from the start.
import { afterEach, expect, test } from "bun:test";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

test("a render handed back at shutdown puts its video back to queued, with its credits still reserved", async () => {
  t = await startService({}, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits: 20 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 640, 480)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: image, dekupe: false } });
  const created = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: product.body.id, language: "en" } });
  expect(created.status).toBe(202);
  const get = async () => (await t.json("GET", `/v1/videos/${created.body.id}`, { token: acct.token })).body;

  // The render starts; once it is processing, the engine stops with no time to finish it.
  expect(await t.service.jobs.tick()).toBe(1);
  let video = await get();
  for (let i = 0; i < 200 && video.status !== "processing"; i++) (await Bun.sleep(10), (video = await get()));
  expect(video.status).toBe("processing");
  expect((await t.service.jobs.stop({ deadlineMs: 0 })).released).toBe(1);

  video = await get();
  expect([video.status, video.progress, video.credits_reserved]).toEqual(["queued", 0, created.body.credits_reserved]);
  const [job] = await t.service.jobs.listJobs({ kind: "video.render" });
  expect(job).toMatchObject({ status: "queued", attempts: 0 });
});
