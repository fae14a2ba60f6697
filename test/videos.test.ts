// Videos over the API with the real ffmpeg renderer (at reduced scale): credits reserved and refunded, statuses,
// waiting for a cut-out, failure paths, signed video.completed / video.failed webhooks, credit races.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { verify } from "../src/webhooks/sign";
import { fetchStored, productPhoto, startImageHost, startService, storedBytes, storageKeyOf, type ImageHost, type TestService } from "./helpers";

let host: ImageHost;
let t: TestService;
beforeAll(async () => {
  host = startImageHost({ "/mug.jpg": { body: await productPhoto("jpeg", 800, 600), type: "image/jpeg" } });
});
afterAll(() => host.close());
afterEach(async () => {
  await t?.close();
});

type Received = { headers: Headers; body: string };
function receiver() {
  const got: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      got.push({ headers: req.headers, body: await req.text() });
      return new Response("ok");
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hooks`, got, close: () => server.stop(true) };
}

async function setup(credits = 20, env: Record<string, string> = {}) {
  t = await startService(env, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits, language: "tr" });
  // A data: URL, so the product can be made whatever the outbound address rules of the test are.
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 800, 600)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Stoneware Mug", description: "Hand glazed, 350 ml", image_url: image } });
  await t.runJobs(); // the cut-out
  const templates = (await t.json("GET", "/v1/templates", { token: acct.token })).body.data as { id: string; name: string; credits: number; premium: boolean; aspect: string }[];
  const template = templates.find((x) => !x.premium && x.aspect === "9:16") ?? templates.find((x) => !x.premium)!;
  return { acct, productId: product.body.id as string, template, templates };
}

const balance = async (token: string) => (await t.json("GET", "/v1/balance", { token })).body.credits as number;

function ffprobe(path: string) {
  const out = Bun.spawnSync(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height:format=duration", "-of", "json", path]);
  return JSON.parse(out.stdout.toString()) as { streams: { codec_name: string; width: number; height: number }[]; format: { duration: string } };
}

describe("POST /v1/videos", () => {
  test("reserves credits, renders, and ends completed with a playable MP4 and a thumbnail", async () => {
    const { acct, productId, template } = await setup();
    const res = await t.json("POST", "/v1/videos", {
      token: acct.token,
      body: { template_id: template.id, product_id: productId, user_prompt: {}, language: "en" },
    });
    expect(res.status).toBe(202);
    const id = res.body.id as string;
    expect(res.body).toMatchObject({ object: "video", status: "queued", template_id: template.id, product_id: productId, language: "en", progress: 0, credits_used: 0 });
    expect(await balance(acct.token)).toBe(20 - template.credits);
    await t.runJobs();
    const done = await t.json("GET", `/v1/videos/${id}`, { token: acct.token });
    expect(done.body.status).toBe("completed");
    expect(done.body.progress).toBe(100);
    expect(done.body.credits_used).toBe(template.credits);
    expect(done.body.completed_at).toBeString();
    const file = join(t.dir, "video-under-test.mp4");
    writeFileSync(file, (await storedBytes(t, done.body.video_url))!);
    const probe = ffprobe(file);
    expect(probe.streams[0].codec_name).toBe("h264");
    expect(Number(probe.format.duration)).toBeCloseTo(done.body.duration, 0);
    const thumb = await fetchStored(t, done.body.thumbnail_url);
    expect(thumb.headers.get("content-type")).toBe("image/jpeg");
    const txns = (await t.json("GET", "/v1/balance/transactions", { token: acct.token })).body.data;
    const usage = txns.filter((x: { type: string }) => x.type === "usage");
    expect(usage).toHaveLength(1);
    // A person reads what the credits went on: the product, the template, then the video's id.
    expect(usage[0].description).toBe(`Video of Stoneware Mug (${template.name}, ${done.body.id})`);
    expect(await balance(acct.token)).toBe(20 - template.credits);
  });

  test("the language defaults to the account's", async () => {
    const { acct, productId, template } = await setup();
    const res = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } });
    expect(res.body.language).toBe("tr");
  });

  test("a signed video.completed reaches the webhook_url", async () => {
    const { acct, productId, template } = await setup();
    const r = receiver();
    try {
      const res = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId, webhook_url: r.url, language: "ar" } });
      await t.runJobs();
      expect(r.got).toHaveLength(1);
      const body = JSON.parse(r.got[0].body);
      expect(body.event).toBe("video.completed");
      expect(body.data).toMatchObject({ id: res.body.id, status: "completed", credits_used: template.credits });
      expect(storageKeyOf(body.data.video_url)).toStartWith(`videos/${res.body.id}/`);
      const secret = (await t.json("GET", "/v1/webhooks/secret", { token: acct.token })).body.secret;
      const h = r.got[0].headers;
      expect(
        verify(secret, { id: h.get("webhook-id")!, timestamp: h.get("webhook-timestamp")!, signature: h.get("webhook-signature")! }, r.got[0].body, Math.floor(t.clock.now() / 1000)),
      ).toBe(true);
      const deliveries = await t.json("GET", `/v1/webhooks/deliveries?video_id=${res.body.id}`, { token: acct.token });
      expect(deliveries.body.data[0].status).toBe("delivered");
    } finally {
      r.close();
    }
  });

  test("too few credits is a 402 with required and available, and nothing is created", async () => {
    const { acct, productId, template } = await setup(0);
    const res = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ error: "Insufficient credits", code: "insufficient_credits", message: expect.any(String), required: template.credits, available: 0 });
    expect((await t.json("GET", "/v1/videos", { token: acct.token })).body.data).toEqual([]);
  });

  test("parallel requests never spend more than the balance", async () => {
    const { acct, productId, template } = await setup(0);
    const afford = 3;
    await t.json("POST", `/v1/admin/accounts/${acct.id}/credits`, { token: "admin-token-for-tests-0123456789", body: { amount: afford * template.credits } });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } })),
    );
    expect(results.filter((r) => r.status === 202)).toHaveLength(afford);
    expect(results.filter((r) => r.status === 402)).toHaveLength(10 - afford);
    expect(await balance(acct.token)).toBe(0);
  });

  test("bad requests: unknown template or product is 404, a bad user_prompt or field is 422", async () => {
    const { acct, productId, template } = await setup();
    const other = await t.newAccount();
    const theirs = await t.json("POST", "/v1/products", { token: other.token, body: { name: "X", image_url: host.url("/mug.jpg"), dekupe: false } });
    expect((await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "nope", product_id: productId } })).status).toBe(404);
    expect((await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: theirs.body.id } })).status).toBe(404);
    const badPrompt = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId, user_prompt: { nonsense_field: 1 } } });
    expect(badPrompt.status).toBe(422);
    expect(badPrompt.body.details[0].field).toStartWith("user_prompt");
    const unknown = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId, colour: "red" } });
    expect(unknown.status).toBe(422);
    const lang = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId, language: "not a language" } });
    expect(lang.status).toBe(422);
  });

  test("a webhook_url on a refused address is a 422 when private networks are not allowed", async () => {
    const { acct, productId, template } = await setup(20, { VITRIN_ALLOW_PRIVATE_NETWORKS: "false" });
    const res = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId, webhook_url: "http://127.0.0.1:9/x" } });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("webhook_url");
  });

  test("estimate returns the cost and creates nothing", async () => {
    const { acct, productId, template } = await setup(1);
    const res = await t.json("POST", "/v1/videos/estimate", { token: acct.token, body: { template_id: template.id, product_id: productId } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ template_id: template.id, credits: template.credits, available: 1, sufficient: template.credits <= 1 });
    expect((await t.json("GET", "/v1/videos", { token: acct.token })).body.data).toEqual([]);
    expect(await balance(acct.token)).toBe(1);
  });
});

describe("waiting and failing", () => {
  test("a product still being cleaned makes the video wait, not fail", async () => {
    const { acct, template } = await setup();
    const p = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Fresh", image_url: host.url("/mug.jpg") } });
    expect(p.body.dekupe.status).toBe("processing");
    const v = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: p.body.id } });
    const first = await t.service.jobs.listJobs({ kind: "video.render" });
    expect(first.length).toBeGreaterThan(0);
    await t.runJobs();
    t.clock.advance(5000);
    await t.runJobs();
    const done = await t.json("GET", `/v1/videos/${v.body.id}`, { token: acct.token });
    expect(done.body.status).toBe("completed");
    // The first render job found the cut-out unfinished and queued a later look instead of failing.
    expect((await t.service.jobs.listJobs({ kind: "video.render" })).length).toBeGreaterThanOrEqual(2);
  });

  test("a product deleted before rendering fails the video, refunds it and sends video.failed", async () => {
    const { acct, productId, template } = await setup();
    const r = receiver();
    try {
      const v = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId, webhook_url: r.url } });
      await t.json("DELETE", `/v1/products/${productId}`, { token: acct.token });
      await t.runJobs();
      const failed = await t.json("GET", `/v1/videos/${v.body.id}`, { token: acct.token });
      expect(failed.body).toMatchObject({ status: "failed", credits_used: 0, error: { code: "product_missing" } });
      expect(await balance(acct.token)).toBe(20);
      const refunds = (await t.json("GET", "/v1/balance/transactions", { token: acct.token })).body.data.filter((x: { type: string }) => x.type === "refund");
      expect(refunds).toEqual([expect.objectContaining({ amount: template.credits })]);
      const events = r.got.map((g) => JSON.parse(g.body));
      expect(events).toEqual([expect.objectContaining({ event: "video.failed", data: expect.objectContaining({ status: "failed", error: expect.objectContaining({ code: "product_missing" }) }) })]);
    } finally {
      r.close();
    }
  });

  test("a missing product image fails the video with a refund", async () => {
    const { acct, productId, template } = await setup();
    const product = (await t.json("GET", `/v1/products/${productId}`, { token: acct.token })).body;
    await t.service.plugins.storage.delete(storageKeyOf(product.image_url));
    const v = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } });
    await t.runJobs();
    const failed = await t.json("GET", `/v1/videos/${v.body.id}`, { token: acct.token });
    expect(failed.body).toMatchObject({ status: "failed", error: { code: "product_image_missing" } });
    expect(await balance(acct.token)).toBe(20);
  });

  test("a render that takes too long is stopped, failed and refunded", async () => {
    const { acct, productId, template } = await setup(20, { VITRIN_RENDER_TIMEOUT_MS: "150" });
    const v = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } });
    await t.runJobs();
    const failed = await t.json("GET", `/v1/videos/${v.body.id}`, { token: acct.token });
    expect(failed.body.status).toBe("failed");
    expect(failed.body.error.code).toBe("render_timeout");
    expect(await balance(acct.token)).toBe(20);
  });

  test("ffmpeg killed mid-render fails the video with a refund", async () => {
    const { acct, productId, template } = await setup();
    const v = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } });
    const killer = (async () => {
      for (let i = 0; i < 400; i++) {
        const r = Bun.spawnSync(["pkill", "-KILL", "-f", `ffmpeg.*render-${v.body.id}`]);
        if (r.exitCode === 0) return true;
        await Bun.sleep(10);
      }
      return false;
    })();
    await t.runJobs();
    expect(await killer).toBe(true);
    const failed = await t.json("GET", `/v1/videos/${v.body.id}`, { token: acct.token });
    expect(failed.body.status).toBe("failed");
    expect(failed.body.error.code).toBe("render_failed");
    expect(await balance(acct.token)).toBe(20);
  });
});

describe("reading videos", () => {
  test("lists newest first, and another account's video is 404", async () => {
    const { acct, productId, template } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(10);
      ids.push((await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: template.id, product_id: productId } })).body.id);
    }
    const list = await t.json("GET", "/v1/videos?limit=2", { token: acct.token });
    expect(list.body.data.map((v: { id: string }) => v.id)).toEqual([ids[2], ids[1]]);
    expect(list.body.has_more).toBe(true);
    const other = await t.newAccount();
    expect((await t.json("GET", `/v1/videos/${ids[0]}`, { token: other.token })).status).toBe(404);
    expect((await t.json("GET", "/v1/videos", { token: other.token })).body.data).toEqual([]);
  });

  test("GET /v1/templates lists every template with its cost and prompt schema", async () => {
    const { acct, templates } = await setup();
    expect(templates.length).toBeGreaterThanOrEqual(5);
    const one = await t.json("GET", `/v1/templates/${templates[0].id}`, { token: acct.token });
    expect(one.body).toMatchObject({ id: templates[0].id, object: "template", credits: expect.any(Number), prompt_schema: expect.objectContaining({ type: "object" }) });
    const preview = await t.call("GET", `/v1/templates/${templates[0].id}/preview`, { token: acct.token });
    expect(preview.headers.get("content-type")).toBe("image/png");
  });
});
