// A retry accepted while the previous dekupe job is still finishing (its cut-out saved, the job not yet marked done)
// gets a run of its own: the product settles with the retry's attempt instead of staying "processing" for good.
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { builtinPlugins } from "../plugins";
import { createNoneRemoval } from "../plugins/background-removal-none";
import { definePlugin } from "../src/plugins";
import { productPhoto, startService, type TestService } from "./helpers";

const dataUrl = (bytes: Uint8Array, type: string) => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** The pass-through removal, held at its first call until the test opens the gate; every call's attempt is recorded. */
function gatedRegistry(gate: Promise<void>, attempts: number[]) {
  const none = createNoneRemoval();
  return builtinPlugins().add(
    definePlugin({
      slot: "background-removal",
      name: "gated",
      description: "The pass-through removal, held at its first call (tests).",
      create: () => ({
        ...none,
        name: "gated",
        async remove(req) {
          attempts.push(req.attempt);
          if (attempts.length === 1) await gate;
          return none.remove(req);
        },
      }),
    }),
  );
}

test("a retry accepted before the running dekupe job ends gets its own run; the product does not stay processing", async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const attempts: number[] = [];
  t = await startService({ VITRIN_BACKGROUND_REMOVAL: "gated" }, { registry: gatedRegistry(gate, attempts) });
  const { token } = await t.newAccount();
  const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: dataUrl(await productPhoto("jpeg", 400, 300), "image/jpeg") } });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  // The first job starts and is held inside the removal.
  expect(await t.service.jobs.tick()).toBe(1);
  for (let i = 0; i < 100 && attempts.length === 0; i++) await Bun.sleep(10);
  expect(attempts).toEqual([1]);
  // The state the race leaves: the running job has just saved its cut-out ("ready") and is not yet marked done.
  const { products } = t.service.db.schema;
  await t.service.db.tx((tx) => tx.update(products).set({ dekupeStatus: "ready" }).where(eq(products.id, id)));
  const retry = await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token, body: { crop: "none" } });
  expect(retry.status).toBe(202);
  open();
  await t.service.jobs.drain();
  await t.runJobs();
  const dekupe = (await t.json("GET", `/v1/products/${id}/dekupe`, { token })).body;
  expect(dekupe).toMatchObject({ status: "ready", crop: "none" });
  // The retry ran as attempt 2 in its own job; the held job's late cut-out was stale and not used.
  expect(attempts).toEqual([1, 2]);
});
