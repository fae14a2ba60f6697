// /metrics shows the work behind the API: render and dekupe durations by outcome, webhook attempts by outcome and
// jobs that went dead by kind, each counted where that work ends.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
let receiver: ReturnType<typeof Bun.serve> | null = null;
afterEach(async () => {
  receiver?.stop(true);
  await t?.close();
});

const metric = (text: string, name: string) => {
  const line = text.split("\n").find((l) => l.startsWith(name));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
};
const metricsText = async () => (await t.service.handle(new Request("http://vitrin.test/metrics"))).text();

test("a completed render, a ready cut-out and a delivered webhook are counted with their durations", async () => {
  receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
  t = await startService({ VITRIN_STORAGE: "local" }, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits: 20 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto()).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: image } });
  await t.runJobs();
  const video = await t.json("POST", "/v1/videos", {
    token: acct.token,
    body: { template_id: "spotlight", product_id: product.body.id, language: "en", webhook_url: `http://127.0.0.1:${receiver.port}/hook` },
  });
  expect(video.status).toBe(202);
  await t.runJobs();
  const text = await metricsText();
  expect(metric(text, 'vitrin_dekupe_duration_seconds_count{outcome="ready"}')).toBe(1);
  expect(metric(text, 'vitrin_render_duration_seconds_count{template="spotlight",outcome="completed"}')).toBe(1);
  expect(metric(text, 'vitrin_render_duration_seconds_sum{template="spotlight",outcome="completed"}')).toBeGreaterThan(0);
  expect(metric(text, 'vitrin_webhook_attempts_total{outcome="delivered"}')).toBe(1);
  expect(metric(text, "vitrin_jobs_dead_total")).toBe(0);
}, 60_000);

test("a render job that goes dead is counted by kind", async () => {
  t = await startService({ VITRIN_STORAGE: "local" }, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits: 20 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto()).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: image, dekupe: false } });
  await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "spotlight", product_id: product.body.id, language: "en" } });
  writeFileSync(join(t.dir, "files", "videos"), "not a folder");
  for (let i = 0; i < 4; i++) {
    await t.runJobs();
    t.clock.advance(60 * 60 * 1000);
  }
  const text = await metricsText();
  expect(metric(text, 'vitrin_jobs_dead_total{kind="video.render"}')).toBe(1);
}, 60_000);
