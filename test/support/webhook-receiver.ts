// Support for the webhook tests: an independent Standard Webhooks verifier, scripted receivers on loopback, and a
// service per test with an account and its secret.
import { expect } from "bun:test";
import { startService, type TestService } from "../helpers";

/** An independent Standard Webhooks verifier written from the spec with WebCrypto (not our sign.ts). */
export async function independentVerify(
  secret: string,
  h: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds: number,
): Promise<boolean> {
  const ts = Number(h.timestamp);
  if (!Number.isFinite(ts) || Math.abs(nowSeconds - ts) > 300) return false;
  const raw = secret.startsWith("whsec_") ? secret.slice(6) : secret;
  const keyBytes = Uint8Array.from(atob(raw), (c) => c.charCodeAt(0));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${h.id}.${h.timestamp}.${body}`)));
  const expected = btoa(String.fromCharCode(...mac));
  return h.signature.split(" ").some((part) => part === `v1,${expected}`);
}

export type Received = { headers: Headers; body: string; at: number };

/** A real receiver on loopback answering with the scripted responses in turn (the last one repeats). */
export function receiver(script: ((req: Request) => Response | Promise<Response>)[]) {
  const received: Received[] = [];
  let i = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push({ headers: req.headers, body: await req.text(), at: Date.now() });
      const step = script[Math.min(i++, script.length - 1)];
      return step(req);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, received, port: server.port, close: () => server.stop(true) };
}

/** The service of the current test (set by setup). */
export let t: TestService;

/** Closes the current test's service: each test file runs it after each test. */
export async function closeService(): Promise<void> {
  await t?.close();
}

export async function setup(env: Record<string, string> = {}) {
  t = await startService(env);
  const acct = await t.newAccount();
  const secret = (await t.json("GET", "/v1/webhooks/secret", { token: acct.token })).body.secret as string;
  return { acct, secret };
}

export async function ping(token: string, url: string) {
  const res = await t.json("POST", "/v1/webhooks/test", { token, body: { url } });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

export const nowSeconds = () => Math.floor(t.clock.now() / 1000);
