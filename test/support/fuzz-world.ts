// The fuzz suite's starting state: one service with two accounts that each own a product, a video, a top-up, a
// webhook message and ledger rows, so requests can aim at the caller's own ids and at the other account's (IDOR).
import { productPhoto, startService, ADMIN_TOKEN, type TestService } from "../helpers";
import type { Foreign } from "./fuzz-checks";
import type { FuzzPools, IdKind } from "./fuzz-requests";

export type Owner = { id: string; token: string; tokenId: string; ids: Partial<Record<IdKind, string[]>>; secret: string };

export type World = {
  t: TestService;
  a: Owner;
  b: Owner;
  /** Pools as account A sees them: A's ids are its own, B's are foreign. */
  pools: FuzzPools;
  /** What of B must never reach A. */
  foreignToA: Foreign;
  /** B's view of its own things before the fuzz, to compare after it. */
  snapshotB(): Promise<string>;
  close(): Promise<void>;
};

/** A receiver for webhooks on loopback that answers 200 to everything. */
function hookReceiver() {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
  return { url: `http://127.0.0.1:${server.port}/hooks`, close: () => server.stop(true) };
}

export async function expectStatus(res: Promise<{ status: number; body: any }>, status: number, what: string) {
  const r = await res;
  if (r.status !== status) throw new Error(`fuzz setup: ${what} answered ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function makeOwner(t: TestService, label: string, imageDataUrl: string, hookUrl: string, template: string): Promise<Owner> {
  const created = await expectStatus(t.json("POST", "/v1/admin/accounts", { token: ADMIN_TOKEN, body: { credits: 4, name: `${label} account` } }), 201, "account");
  const token = created.token as string;
  const call = (method: string, path: string, body?: unknown) => t.json(method, path, { token, body });
  const product = await expectStatus(call("POST", "/v1/products", { name: `${label}-product-name`, description: `${label}-product-description`, image_url: imageDataUrl }), 201, "product");
  await t.runJobs(); // the cut-out, so the product is ready for a video
  const video = await expectStatus(call("POST", "/v1/videos", { template_id: template, product_id: product.id, user_prompt: {} }), 202, "video");
  const topUp = await expectStatus(call("POST", "/v1/balance/top-up", { amount: 1000, currency: "usd" }), 201, "top-up");
  await expectStatus(call("POST", "/v1/webhooks/test", { url: `${hookUrl}?${label}-hook` }), 202, "webhook test");
  await expectStatus(call("PUT", "/v1/webhooks/endpoint", { url: `${hookUrl}?${label}-endpoint` }), 200, "webhook endpoint");
  const messages = (await expectStatus(call("GET", "/v1/webhooks/deliveries"), 200, "deliveries")).data as { id: string }[];
  const txns = (await expectStatus(call("GET", "/v1/balance/transactions"), 200, "transactions")).data as { id: string }[];
  const secret = (await expectStatus(call("GET", "/v1/webhooks/secret"), 200, "secret")).secret as string;
  return {
    id: created.account.id,
    token,
    tokenId: created.token_id,
    secret,
    ids: {
      product: [product.id],
      video: [video.id],
      top_up: [topUp.id],
      message: messages.map((m) => m.id),
      transaction: txns.map((x) => x.id),
      account: [created.account.id],
      token: [created.token_id],
    },
  };
}

export async function buildWorld(): Promise<World> {
  const t = await startService(
    {},
    {
      renderScale: 0.25,
      // No name resolves: a fuzzed URL must never wait on real DNS (there is no network here anyway).
      resolve: async (host) => {
        throw new Error(`no DNS in the fuzz suite (${host})`);
      },
    },
  );
  const receiver = hookReceiver();
  try {
    const imageDataUrl = `data:image/png;base64,${Buffer.from(await productPhoto("png", 96, 72)).toString("base64")}`;
    const templates = (await expectStatus(t.json("GET", "/v1/templates", { token: (await t.newAccount()).token }), 200, "templates")).data as {
      id: string;
      credits: number;
      premium: boolean;
      prompt_schema: { properties?: Record<string, unknown> };
    }[];
    const cheapest = templates.filter((x) => !x.premium).sort((x, y) => x.credits - y.credits)[0].id;
    const a = await makeOwner(t, "alpha", imageDataUrl, receiver.url, cheapest);
    const b = await makeOwner(t, "bravo", imageDataUrl, receiver.url, cheapest);
    const templateIds = templates.map((x) => x.id);
    const promptKeys = [...new Set(templates.flatMap((x) => Object.keys(x.prompt_schema.properties ?? {})))];
    const pools: FuzzPools = {
      own: { ...a.ids, template: templateIds, provider: [t.service.plugins.payment.name] },
      foreign: b.ids,
      templates: templateIds,
      promptKeys,
      imageDataUrl,
      hookUrl: receiver.url,
      writes: [],
    };
    const foreignToA: Foreign = {
      ids: Object.values(b.ids).flat(),
      texts: ["bravo-product-name", "bravo-product-description", "bravo-hook", "bravo-endpoint", b.secret, b.token],
    };
    const snapshotB = async () => {
      // Presigned links (the S3 run) carry the time they were signed: compare what they point at, not when.
      const read = async (path: string) => JSON.stringify((await t.json("GET", path, { token: b.token })).body).replace(/\?X-Amz-[^"]*/g, "");
      return [await read("/v1/balance"), await read("/v1/products"), await read("/v1/videos"), await read("/v1/webhooks/endpoint")].join("\n");
    };
    return {
      t,
      a,
      b,
      pools,
      foreignToA,
      snapshotB,
      async close() {
        receiver.close();
        await t.close();
      },
    };
  } catch (e) {
    receiver.close();
    await t.close();
    throw e;
  }
}
