// GET /v1/admin/jobs pages as the other lists do: newest first, `limit`, `starting_after` / `ending_before` by job id,
// `has_more` true while older jobs remain, filters kept across pages, and a cursor that names no job is a 422.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { JOB_KINDS } from "../src/service";
import { ADMIN_TOKEN, startService, type TestService } from "./helpers";

let t: TestService;
let ids: string[] = [];
const KIND = "test.parked";

beforeAll(async () => {
  // Run far in the future, so the worker never claims them: they stay queued while the list is read.
  t = await startService();
  for (let i = 0; i < 7; i++) {
    const { id } = await t.service.db.tx((tx) => t.service.jobs.enqueue(tx, KIND, { n: i }, { runAt: Date.parse("2100-01-01") }));
    ids.push(id);
    t.clock.advance(1000);
  }
  ids = ids.reverse(); // newest first
});
afterAll(() => t?.close());

const list = async (query: string) => (await t.json("GET", `/v1/admin/jobs?kind=${KIND}&${query}`, { token: ADMIN_TOKEN }));
const idsOf = (body: { data: { id: string }[] }) => body.data.map((j) => j.id);

test("pages newest first with has_more, forward with starting_after and back with ending_before", async () => {
  const first = await list("limit=3");
  expect([idsOf(first.body), first.body.has_more]).toEqual([ids.slice(0, 3), true]);
  const second = await list(`limit=3&starting_after=${ids[2]}`);
  expect([idsOf(second.body), second.body.has_more]).toEqual([ids.slice(3, 6), true]);
  const last = await list(`limit=3&starting_after=${ids[5]}`);
  expect([idsOf(last.body), last.body.has_more]).toEqual([ids.slice(6), false]);
  const back = await list(`limit=3&ending_before=${ids[3]}`);
  expect(idsOf(back.body)).toEqual(ids.slice(0, 3));
  expect((await list("status=queued")).body.data).toHaveLength(7);
  expect((await list("status=dead")).body).toEqual({ data: [], has_more: false });
});

test("a cursor naming no job, both cursors, or a limit over 500 is a 422 naming the field", async () => {
  expect((await list("starting_after=job_nope")).body.details).toEqual([{ field: "starting_after", message: "no job with id job_nope" }]);
  expect((await list(`starting_after=${ids[0]}&ending_before=${ids[1]}`)).body.details[0].field).toBe("ending_before");
  const big = await list("limit=501");
  expect([big.status, big.body.details[0].field]).toEqual([422, "limit"]);
});

test("an unknown kind is a 422 listing the registered kinds, as an unknown status is", async () => {
  const res = await t.json("GET", "/v1/admin/jobs?kind=nope", { token: ADMIN_TOKEN });
  expect(res.status).toBe(422);
  const kinds = t.service.jobs.registeredKinds();
  expect(kinds).toContain("webhook.deliver");
  expect(res.body.details).toEqual([{ field: "kind", message: `must be one of ${kinds.map((k) => JSON.stringify(k)).join(", ")}` }]);
  expect((await t.json("GET", "/v1/admin/jobs?kind=webhook.deliver", { token: ADMIN_TOKEN })).status).toBe(200);
});

test("an empty kind is a 422 (it would filter nothing and list every job)", async () => {
  const res = await t.json("GET", "/v1/admin/jobs?kind=", { token: ADMIN_TOKEN });
  expect([res.status, res.body.details?.[0]?.field]).toEqual([422, "kind"]);
});

test("the kinds `vitrin jobs list --kind` is checked against, without a service, are the ones a started service registers", () => {
  expect([...JOB_KINDS]).toEqual(t.service.jobs.registeredKinds());
});
