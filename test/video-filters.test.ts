// GET /v1/videos filters: status, product_id, created[gte] / created[lte] (in created_at's format), each alone and
// together with the cursor pages, and a bad value is a 422 naming its parameter.
import { afterEach, describe, expect, test } from "bun:test";
import { productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

const HOUR = 3_600_000;

/**
 * Six videos an hour apart over two products (a, b, a, b, a, b), the 2nd and 5th failed; returns the ids oldest first
 * and each video's created_at.
 */
async function setup() {
  t = await startService();
  const { token } = await t.newAccount({ credits: 100 });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 320, 240)).toString("base64")}`;
  const product = async (name: string) => (await t.json("POST", "/v1/products", { token, body: { name, image_url: image, dekupe: false } })).body.id as string;
  const a = await product("A");
  const b = await product("B");
  const template = ((await t.json("GET", "/v1/templates", { token })).body.data as { id: string; premium: boolean }[]).find((x) => !x.premium)!.id;
  const videos: { id: string; product: string; created_at: string }[] = [];
  for (let i = 0; i < 6; i++) {
    t.clock.advance(HOUR);
    const productId = i % 2 === 0 ? a : b;
    const res = await t.json("POST", "/v1/videos", { token, body: { template_id: template, product_id: productId } });
    expect(res.status).toBe(202);
    videos.push({ id: res.body.id, product: productId, created_at: res.body.created_at });
  }
  await t.service.videos.fail(videos[1].id, "render_failed", "test");
  await t.service.videos.fail(videos[4].id, "render_failed", "test");
  const list = async (query: string) => {
    const res = await t.json("GET", `/v1/videos?${query}`, { token });
    return { ...res, ids: res.status === 200 ? (res.body.data as { id: string }[]).map((v) => v.id) : [] };
  };
  return { token, a, b, videos, ids: videos.map((v) => v.id), list };
}

describe("GET /v1/videos filters", () => {
  test("status", async () => {
    const { ids, list } = await setup();
    expect((await list("status=failed")).ids).toEqual([ids[4], ids[1]]);
    expect((await list("status=queued")).ids).toEqual([ids[5], ids[3], ids[2], ids[0]]);
    expect((await list("status=completed")).ids).toEqual([]);
  });

  test("product_id", async () => {
    const { ids, a, list } = await setup();
    expect((await list(`product_id=${a}`)).ids).toEqual([ids[4], ids[2], ids[0]]);
    expect((await list("product_id=prod_nothere")).ids).toEqual([]);
  });

  test("created[gte] and created[lte] take created_at's own format, both bounds inclusive", async () => {
    const { ids, videos, list } = await setup();
    const gte = encodeURIComponent(videos[1].created_at);
    const lte = encodeURIComponent(videos[3].created_at);
    expect((await list(`created[gte]=${gte}`)).ids).toEqual([ids[5], ids[4], ids[3], ids[2], ids[1]]);
    expect((await list(`created[lte]=${lte}`)).ids).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect((await list(`created%5Bgte%5D=${gte}&created%5Blte%5D=${lte}`)).ids).toEqual([ids[3], ids[2], ids[1]]);
    // Another zone's way of saying the same instant.
    const plus3 = new Date(Date.parse(videos[3].created_at) + 3 * HOUR).toISOString().replace(".000Z", "+03:00");
    expect((await list(`created[lte]=${encodeURIComponent(plus3)}`)).ids).toEqual([ids[3], ids[2], ids[1], ids[0]]);
  });

  test("filters combine with each other and with cursor pages", async () => {
    const { ids, b, videos, list } = await setup();
    const q = `product_id=${b}&status=queued&created[gte]=${encodeURIComponent(videos[0].created_at)}`;
    expect((await list(q)).ids).toEqual([ids[5], ids[3]]);
    const first = await list(`status=queued&limit=2`);
    expect(first.ids).toEqual([ids[5], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const second = await list(`status=queued&limit=2&starting_after=${ids[3]}`);
    expect(second.ids).toEqual([ids[2], ids[0]]);
    expect(second.body.has_more).toBe(false);
    const back = await list(`status=queued&limit=2&ending_before=${ids[2]}`);
    expect(back.ids).toEqual([ids[5], ids[3]]);
  });

  test("a cursor that has since left the filter still marks the place", async () => {
    const { ids, list } = await setup();
    // ids[4] failed: it is not in the queued list, yet paging from it continues below it.
    expect((await list(`status=queued&starting_after=${ids[4]}`)).ids).toEqual([ids[3], ids[2], ids[0]]);
  });

  test("bad values are 422s naming their parameter; unknown parameters stay 422s", async () => {
    const { list } = await setup();
    const cases: [string, string][] = [
      ["status=done", "status"],
      ["created[gte]=yesterday", "created[gte]"],
      ["created[lte]=1700000000", "created[lte]"],
      // Days the calendar does not have are refused, not moved on into the next month.
      ["created[gte]=2026-02-30", "created[gte]"],
      ["created[lte]=2026-11-31T00:00:00Z", "created[lte]"],
      ["created[gte]=2025-02-29", "created[gte]"],
      ["created[gte]=2026-13-01", "created[gte]"],
      ["created[gte]=2026-11-23T00:00:00Z&created[lte]=2026-11-22T00:00:00Z", "created[lte]"],
      ["created[gt]=2026-11-22T00:00:00Z", "created[gt]"],
      ["colour=red", "colour"],
    ];
    for (const [query, field] of cases) {
      const res = await list(query);
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe(field);
    }
  });
});
