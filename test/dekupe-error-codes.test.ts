// Why a cut-out attempt failed, as a code beside the message (dekupe.error_code and each attempt's error_code): from the
// plugin's error, from the check of its cut-out, from the job, and for failures recorded before the codes existed.
import { afterEach, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import sharp from "sharp";
import { builtinPlugins } from "../plugins";
import { createNoneRemoval } from "../plugins/background-removal-none";
import { postgresMigrations, sqliteMigrations } from "../src/db/migrations";
import { definePlugin, NoSubjectError, type Cutout, type CutoutRequest } from "../src/plugins";
import { productPhoto, startService, storageKeyOf, type TestService } from "./helpers";

const dataUrl = (bytes: Uint8Array) => `data:image/jpeg;base64,${Buffer.from(bytes).toString("base64")}`;

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

/** A service whose background removal is `remove`, and an account. */
async function serviceWith(remove: (req: CutoutRequest) => Promise<Cutout>) {
  const registry = builtinPlugins().add(
    definePlugin({
      slot: "background-removal",
      name: "scripted",
      description: "A removal whose every call the test scripts.",
      create: () => ({ ...createNoneRemoval(), name: "scripted", remove }),
    }),
  );
  t = await startService({ VITRIN_BACKGROUND_REMOVAL: "scripted" }, { registry });
  return { t, token: (await t.newAccount()).token };
}

async function failedProduct(remove: (req: CutoutRequest) => Promise<Cutout>) {
  const { t, token } = await serviceWith(remove);
  const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: dataUrl(await productPhoto("jpeg", 400, 300)) } });
  expect(created.status).toBe(201);
  await t.runJobs();
  const id = created.body.id as string;
  const dekupe = (await t.json("GET", `/v1/products/${id}`, { token })).body.dekupe;
  const attempts = (await t.json("GET", `/v1/products/${id}/dekupe/attempts`, { token })).body.data;
  return { t, token, id, dekupe, attempts };
}

describe("dekupe error codes", () => {
  test("a plugin's NoSubjectError is no_subject, on the product and on its attempt", async () => {
    const { dekupe, attempts } = await failedProduct(async () => {
      throw new NoSubjectError("No product found in the image.");
    });
    expect(dekupe).toMatchObject({ status: "failed", error_code: "no_subject", error: "Background removal failed: No product found in the image." });
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: "failed", error_code: "no_subject" });
  });

  test("an error of another copy of the kit is read by its code, not its class", async () => {
    const { dekupe } = await failedProduct(async () => {
      throw Object.assign(new Error("Nothing under the box."), { code: "no_subject" });
    });
    expect(dekupe.error_code).toBe("no_subject");
  });

  test("any other plugin error is removal_failed, its message kept; a revert clears it from the product, not the attempt", async () => {
    const { t, token, id, dekupe, attempts } = await failedProduct(async () => {
      throw new Error("model file is damaged");
    });
    expect(dekupe).toMatchObject({ status: "failed", error_code: "removal_failed", error: "Background removal failed: model file is damaged" });
    expect(attempts[0].error_code).toBe("removal_failed");
    const reverted = await t.json("POST", `/v1/products/${id}/dekupe/revert`, { token });
    expect(reverted.body.dekupe).toMatchObject({ status: "off", error: null, error_code: null });
    const listed = (await t.json("GET", `/v1/products/${id}/dekupe/attempts`, { token })).body.data;
    expect(listed[0].error_code).toBe("removal_failed");
  });

  test("a thrown plain object keeps its message", async () => {
    const { dekupe } = await failedProduct(async () => {
      throw { code: "no_subject", message: "Nothing in the frame." };
    });
    expect(dekupe).toMatchObject({ error_code: "no_subject", error: "Background removal failed: Nothing in the frame." });
  });

  test("a cut-out whose mask shows nothing is empty_matte", async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    const mask = await sharp({ create: { width: 40, height: 30, channels: 3, background: "#000000" } }).greyscale().png().toBuffer();
    const { dekupe } = await failedProduct(async () => ({
      png: new Uint8Array(png),
      mask: new Uint8Array(mask),
      width: 40,
      height: 30,
      box: { x: 0, y: 0, width: 40, height: 30 },
      variant: "empty",
    }));
    expect(dekupe).toMatchObject({ status: "failed", error_code: "empty_matte" });
    expect(dekupe.error).toMatch(/came out empty/);
  });

  test("the photo gone from storage is image_missing; a later successful retry clears the code", async () => {
    const none = createNoneRemoval();
    const { t, token } = await serviceWith((req) => none.remove(req));
    const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: dataUrl(await productPhoto("jpeg", 400, 300)) } });
    await t.runJobs();
    const id = created.body.id as string;
    const original = (await t.json("GET", `/v1/products/${id}`, { token })).body.original_image_url;
    const bytes = await t.service.plugins.storage.get(storageKeyOf(original));
    const kept = new Uint8Array(await bytes!.body.arrayBuffer());
    await t.service.plugins.storage.delete(storageKeyOf(original));
    await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token });
    await t.runJobs();
    let dekupe = (await t.json("GET", `/v1/products/${id}`, { token })).body.dekupe;
    expect(dekupe).toMatchObject({ status: "failed", error_code: "image_missing", error: "The original image is missing from storage." });
    await t.service.plugins.storage.put(storageKeyOf(original), kept, "image/jpeg");
    await t.json("POST", `/v1/products/${id}/dekupe/retry`, { token });
    await t.runJobs();
    dekupe = (await t.json("GET", `/v1/products/${id}`, { token })).body.dekupe;
    expect(dekupe).toMatchObject({ status: "ready", error: null, error_code: null });
    const attempts = (await t.json("GET", `/v1/products/${id}/dekupe/attempts`, { token })).body.data;
    expect(attempts.map((a: { error_code: string | null }) => a.error_code)).toEqual([null, "image_missing", null]);
  });

  test("a job that went dead is did_not_finish", async () => {
    const { t, token } = await serviceWith(() => new Promise<Cutout>(() => {}));
    const created = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: dataUrl(await productPhoto("jpeg", 400, 300)) } });
    const id = created.body.id as string;
    await t.service.db.tx((tx) => t.service.dekupe.onDead(tx, { productId: id }, "timed out after 300000 ms"));
    const dekupe = (await t.json("GET", `/v1/products/${id}`, { token })).body.dekupe;
    expect(dekupe).toMatchObject({ status: "failed", error_code: "did_not_finish", error: "Background removal did not finish: timed out after 300000 ms" });
  });
});

describe("failures recorded before the codes existed", () => {
  test("the migration gives them the code their message stands for", async () => {
    const none = createNoneRemoval();
    const { t, token } = await serviceWith((req) => none.remove(req));
    const messages: [string, string][] = [
      ["image_missing", "The original image is missing from storage."],
      ["did_not_finish", "Background removal did not finish: the job's instance went away"],
      ["image_changing", "The image kept changing while it was being cleaned."],
      ["no_subject", "Background removal failed: No product found in the image: the model marked 0.00% of it as foreground."],
      // The colorkey example's own words, in lower case: PostgreSQL's LIKE minds case, SQLite's does not.
      ["no_subject", "Background removal failed: no product found: the whole picture matches the backdrop colour #ffffff"],
      ["no_subject", "Background removal failed: No object found under the hint (a point at 10, 10): the model saw nothing there."],
      ["empty_matte", "Background removal failed: The cut-out came out empty: no pixel of the mask reaches alpha 20."],
      ["removal_failed", "Background removal failed: model file is damaged"],
    ];
    const photo = dataUrl(await productPhoto("jpeg", 64, 48));
    const ids: [string, string][] = [];
    const { products, dekupeAttempts } = t.service.db.schema;
    for (const [code, message] of messages) {
      // Five products an account: other accounts hold the rest.
      const owner = ids.length < 5 ? token : (await t.newAccount()).token;
      const created = await t.json("POST", "/v1/products", { token: owner, body: { name: code, image_url: photo, dekupe: false } });
      const id = created.body.id as string;
      ids.push([code, id]);
      await t.service.db.tx(async (tx) => {
        await tx.update(products).set({ dekupeStatus: "failed", dekupeError: message, dekupeErrorCode: null }).where(eq(products.id, id));
        await tx.insert(dekupeAttempts).values({ id: `dka_${id}`, productId: id, number: 1, originalKey: "k", status: "failed", crop: "subject", error: message, createdAt: 0 });
      });
    }
    const migrations = t.service.db.dialect === "sqlite" ? sqliteMigrations() : postgresMigrations();
    const backfill = migrations.find((m) => m.tag.endsWith("_dekupe_error_codes"))!.statements.filter((s) => s.includes("UPDATE"));
    expect(backfill).toHaveLength(2);
    await t.service.db.tx(async (tx) => {
      for (const statement of backfill) {
        if (t.service.db.dialect === "sqlite") tx.run(sql.raw(statement));
        else await (tx as unknown as { execute(q: unknown): Promise<unknown> }).execute(sql.raw(statement));
      }
    });
    for (const [code, id] of ids) {
      const [row] = await t.service.db.read.select().from(products).where(eq(products.id, id));
      expect([code, row.dekupeErrorCode]).toEqual([code, code]);
      const [attempt] = await t.service.db.read.select().from(dekupeAttempts).where(eq(dekupeAttempts.productId, id));
      expect([code, attempt.errorCode]).toEqual([code, code]);
    }
  });
});
