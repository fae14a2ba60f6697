// Property-based fuzzing of every JSON route (issue 18): hostile bodies, ids, query strings and headers never get a
// 5xx, every error has the catalogue's shape, one account never sees another's things, and afterwards every
// account's credits equal the sum of its ledger rows. VITRIN_FUZZ_SEED and VITRIN_FUZZ_RUNS reproduce or widen a run.
import { afterEach, expect, test } from "bun:test";
import fc from "fast-check";
import { ADMIN_TOKEN } from "./helpers";
import { ledgerProblems, sendAndCheck } from "./support/fuzz-checks";
import { accountRoutes, adminRoutes, openRoutes, requestArbitrary, type FuzzPools, type RouteSpec } from "./support/fuzz-requests";
import { buildWorld, expectStatus, type World } from "./support/fuzz-world";

const seed = Number(process.env.VITRIN_FUZZ_SEED ?? 20261122);
// Sized so the file stays well under a minute on two cores; raise it for a longer hunt.
const runs = Number(process.env.VITRIN_FUZZ_RUNS ?? 1000);

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** fc.assert with the suite's seed; a failure names the seed to rerun it with. No shrinking: the service has state. */
async function check<T>(property: fc.IAsyncProperty<[T]>, numRuns: number) {
  try {
    await fc.assert(property, { seed, numRuns, endOnFailure: true, includeErrorInReport: true });
  } catch (e) {
    throw new Error(`fuzz failed; rerun with VITRIN_FUZZ_SEED=${seed} VITRIN_FUZZ_RUNS=${runs}\n${(e as Error).message}`);
  }
}

async function expectLedgerHolds(w: World) {
  await w.t.runJobs(); // renders, refunds and webhook deliveries the fuzz queued
  expect(await ledgerProblems(w.t.service)).toEqual([]);
}

test(
  "an account's requests: never a 5xx, errors in the catalogue's shape, nothing of another account, ledger balances",
  async () => {
    world = await buildWorld();
    const w = world;
    const before = await w.snapshotB();
    const requests = requestArbitrary(accountRoutes, w.pools, fc.constant(`Bearer ${w.a.token}`));
    await check(fc.asyncProperty(requests, (r) => sendAndCheck(w.t.service, r, w.pools, w.foreignToA).then(() => undefined)), runs);
    expect(await w.snapshotB()).toBe(before);
    await expectLedgerHolds(w);
  },
  60_000,
);

test(
  "the operator's requests, mixed with an account's: never a 5xx, errors in the catalogue's shape, ledger balances after grants and top-ups",
  async () => {
    world = await buildWorld();
    const w = world;
    // The operator sees every account: both owners' ids are its own, and jobs come from the table.
    const jobs = (await expectStatus(w.t.json("GET", "/v1/admin/jobs?limit=500", { token: ADMIN_TOKEN }), 200, "jobs")).data as { id: string }[];
    const own: FuzzPools["own"] = {};
    for (const [kind, ids] of [...Object.entries(w.a.ids), ...Object.entries(w.b.ids)]) own[kind as keyof typeof own] = [...(own[kind as keyof typeof own] ?? []), ...ids!];
    own.job = jobs.map((j) => j.id);
    own.token = [w.b.tokenId]; // A's token stays valid: its requests are mixed in below

    const pools: FuzzPools = { ...w.pools, own, foreign: {}, writes: [] };
    // Account A's requests are mixed in: what it starts (top-ups with hostile amounts, videos) the operator then settles.
    const requests = fc.oneof(
      { arbitrary: requestArbitrary(adminRoutes, pools, fc.constant(`Bearer ${ADMIN_TOKEN}`)), weight: 2 },
      { arbitrary: requestArbitrary(accountRoutes.filter((r) => settled.has(`${r.method} ${r.path}`)), pools, fc.constant(`Bearer ${w.a.token}`)), weight: 1 },
    );
    await check(fc.asyncProperty(requests, (r) => sendAndCheck(w.t.service, r, pools).then(() => undefined)), Math.ceil(runs * 0.6));
    await expectLedgerHolds(w);
  },
  60_000,
);

/** What an account starts that the operator or the job engine then settles. */
const settled = new Set(["POST /v1/balance/top-up", "POST /v1/videos", "GET /v1/balance/top-ups/:id"]);

/** Guarded routes answer 2xx only to the right `Authorization` header; these are all the wrong ones. */
function wrongCredentials(w: World): fc.Arbitrary<{ authorization?: string; query?: string; headers?: Record<string, string> }> {
  const tokens = [w.a.token, ADMIN_TOKEN];
  return fc.oneof(
    fc.constant({}),
    fc.constantFrom("Bearer", "Bearer ", "Basic YWRtaW46YWRtaW4=", "Bearer null", "Bearer vk_", `Bearer ${w.a.token}x`, `Bearer ${ADMIN_TOKEN} `.trimEnd() + "0").map((authorization) => ({ authorization })),
    fc.string({ maxLength: 80, unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) }).map((s) => ({ authorization: `Bearer ${s}` })),
    fc.constantFrom(...tokens).map((tok) => ({ query: `access_token=${encodeURIComponent(tok)}` })),
    fc.constantFrom(...tokens).map((tok) => ({ headers: { "x-access-token": tok, cookie: `token=${tok}` } })),
  );
}

test(
  "requests without the right credentials: never a 5xx, errors in the catalogue's shape, never a 2xx on a guarded route",
  async () => {
    world = await buildWorld();
    const w = world;
    const pools: FuzzPools = { ...w.pools, own: { ...w.pools.own, ...w.b.ids, account: [w.a.id, w.b.id] } };
    // The admin token is wrong on account routes and an account's token on admin routes.
    const routes: [RouteSpec, string | undefined][] = [
      ...accountRoutes.map((r): [RouteSpec, string | undefined] => [r, `Bearer ${ADMIN_TOKEN}`]),
      ...adminRoutes.map((r): [RouteSpec, string | undefined] => [r, `Bearer ${w.a.token}`]),
      ...openRoutes.map((r): [RouteSpec, string | undefined] => [r, undefined]),
    ];
    const cases = fc
      .tuple(fc.constantFrom(...routes), wrongCredentials(w), fc.boolean())
      .chain(([[spec, crossToken], cred, cross]) =>
        requestArbitrary([spec], pools, fc.constant(undefined)).map((r) => {
          const headers = { ...r.headers, ...cred.headers };
          const authorization = cross && crossToken ? crossToken : cred.authorization;
          if (authorization !== undefined) headers.authorization = authorization;
          const path = cred.query ? `${r.path}${r.path.includes("?") ? "&" : "?"}${cred.query}` : r.path;
          return { request: { ...r, path, headers }, guarded: !openRoutes.includes(spec) };
        }),
      );
    await check(
      fc.asyncProperty(cases, async ({ request, guarded }) => {
        const res = await sendAndCheck(w.t.service, request, pools, w.foreignToA);
        if (guarded && res.status < 300) throw new Error(`a guarded route answered ${res.status} without the right credentials: ${JSON.stringify(request)}`);
      }),
      Math.ceil(runs * 0.6),
    );
    await expectLedgerHolds(w);
  },
  60_000,
);
