// Demo data for Studio's page tests and screenshots, made through the public API of a live StudioServer: an account
// with credits, a product uploaded as a form with its real cut-out (retried or given a new photo when a test needs
// it), and a completed video of it.
import { readFileSync } from "node:fs";
import { fixturePhoto, type StudioServer } from "./browser";

export type Demo = {
  account: { id: string; token: string };
  product: any;
  video: any;
};

/** Polls `read` until `done` holds for its answer (every 250 ms, up to `timeoutMs`); throws with the last answer. */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 180_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > until) throw new Error(`gave up waiting; last answer: ${JSON.stringify(last).slice(0, 400)}`);
    await Bun.sleep(250);
    last = await read();
  }
  return last;
}

/** A fixture photo as a form with its `image` file part (and `name` when given), as Studio's form sends it. */
function photoForm(photo: string, name?: string): FormData {
  const form = new FormData();
  if (name !== undefined) form.append("name", name);
  form.append("image", new File([readFileSync(fixturePhoto(photo))], photo, { type: "image/jpeg" }));
  return form;
}

/** Waits until the product's cut-out attempt has ended, and throws unless it succeeded; gives the product. */
async function cutoutReady(server: StudioServer, token: string, id: string): Promise<any> {
  const ready = await waitFor(
    () => server.api("GET", `/v1/products/${id}`, { token }),
    (res) => res.body?.dekupe?.status !== "processing" && res.body?.dekupe?.status !== "queued",
  );
  if (ready.body.dekupe.status !== "ready") throw new Error(`cut-out did not succeed: ${JSON.stringify(ready.body.dekupe)}`);
  return ready.body;
}

/** Uploads a fixture photo as multipart/form-data (as Studio's form does) and waits until its cut-out is ready. */
export async function uploadProduct(server: StudioServer, token: string, name: string, photo = "coffee.jpg"): Promise<any> {
  const created = await server.api("POST", "/v1/products", { token, form: photoForm(photo, name) });
  if (created.status !== 201) throw new Error(`product upload failed: ${created.status} ${JSON.stringify(created.body)}`);
  return cutoutReady(server, token, created.body.id);
}

/** Gives the product a new photo (PATCH with a form upload) and waits until the new photo's cut-out is ready. */
export async function replacePhoto(server: StudioServer, token: string, id: string, photo: string): Promise<any> {
  const patched = await server.api("PATCH", `/v1/products/${id}`, { token, form: photoForm(photo) });
  if (patched.status !== 200) throw new Error(`photo replace failed: ${patched.status} ${JSON.stringify(patched.body)}`);
  return cutoutReady(server, token, id);
}

/** Retries the product's cut-out with `body` ({crop, hint}) through the API and waits until the attempt succeeded. */
export async function retryCutout(server: StudioServer, token: string, id: string, body: Record<string, unknown>): Promise<any> {
  const retried = await server.api("POST", `/v1/products/${id}/dekupe/retry`, { token, body });
  if (retried.status !== 202) throw new Error(`retry failed: ${retried.status} ${JSON.stringify(retried.body)}`);
  return cutoutReady(server, token, id);
}

/** Orders a video of the product and waits until it completed (the worker renders it with ffmpeg). */
export async function renderVideo(server: StudioServer, token: string, productId: string, template = "clean-card"): Promise<any> {
  const body = { template_id: template, product_id: productId, user_prompt: { headline: "Morning coffee", price: 12.5, currency: "EUR" } };
  const created = await server.api("POST", "/v1/videos", { token, body });
  if (created.status !== 202) throw new Error(`video create failed: ${created.status} ${JSON.stringify(created.body)}`);
  const done = await waitFor(
    () => server.api("GET", `/v1/videos/${created.body.id}`, { token }),
    (res) => res.body?.status === "completed" || res.body?.status === "failed",
  );
  if (done.body.status !== "completed") throw new Error(`video did not complete: ${JSON.stringify(done.body)}`);
  return done.body;
}

/** An account named "Demo shop" with 40 credits, one product with its cut-out and one completed video. */
export async function seedDemo(server: StudioServer): Promise<Demo> {
  const account = await server.newAccount({ name: "Demo shop", credits: 40, language: "en" });
  const product = await uploadProduct(server, account.token, "Stoneware coffee cup");
  const video = await renderVideo(server, account.token, product.id);
  return { account, product, video };
}
