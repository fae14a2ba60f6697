// Signed webhook delivery: Standard Webhooks vectors checked by an independent verifier, and real loopback
// receivers for retries, redirects, 410, timeouts, Retry-After, rotation and redelivery.
import { afterEach, describe, expect, test } from "bun:test";
import { sign, signatureHeader } from "../src/webhooks/sign";
import { startService, type TestService } from "./helpers";

/** An independent Standard Webhooks verifier written from the spec with WebCrypto (not our sign.ts). */
async function independentVerify(
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

describe("Standard Webhooks signatures", () => {
  // The example from the Standard Webhooks specification.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const ts = 1614265330;
  const body = '{"test": 2432232314}';

  test("our signature matches the specification's example", () => {
    expect(sign(secret, id, ts, body)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("a valid signature verifies independently", async () => {
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature: sign(secret, id, ts, body) }, body, ts)).toBe(true);
  });

  test("a tampered body fails", async () => {
    const signature = sign(secret, id, ts, body);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body.replace("2", "3"), ts)).toBe(false);
  });

  test("a wrong secret fails", async () => {
    const signature = sign("whsec_" + btoa("another secret of 32 bytes......"), id, ts, body);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body, ts)).toBe(false);
  });

  test("an old or a future timestamp fails", async () => {
    const signature = sign(secret, id, ts, body);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body, ts + 301)).toBe(false);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body, ts - 301)).toBe(false);
  });

  test("several signatures of which one is valid verify", async () => {
    const other = "whsec_" + btoa("rotated-out secret, 32 bytes....");
    const header = signatureHeader([other, secret], id, ts, body);
    expect(header.split(" ")).toHaveLength(2);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature: header }, body, ts)).toBe(true);
  });

  test("the secret works with and without the whsec_ prefix", () => {
    expect(sign(secret.slice(6), id, ts, body)).toBe(sign(secret, id, ts, body));
  });
});

type Received = { headers: Headers; body: string; at: number };

/** A real receiver on loopback answering with the scripted responses in turn (the last one repeats). */
function receiver(script: ((req: Request) => Response | Promise<Response>)[]) {
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

let t: TestService;
afterEach(async () => {
  await t?.close();
});

async function setup(env: Record<string, string> = {}) {
  t = await startService(env);
  const acct = await t.newAccount();
  const secret = (await t.json("GET", "/v1/webhooks/secret", { token: acct.token })).body.secret as string;
  return { acct, secret };
}

async function ping(token: string, url: string) {
  const res = await t.json("POST", "/v1/webhooks/test", { token, body: { url } });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

const nowSeconds = () => Math.floor(t.clock.now() / 1000);

describe("delivery", () => {
  test("the secret is a stable whsec_ value", async () => {
    const { acct, secret } = await setup();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect((await t.json("GET", "/v1/webhooks/secret", { token: acct.token })).body.secret).toBe(secret);
  });

  test("a delivery carries {id, type, event, timestamp, created_at, data} and a signature that verifies", async () => {
    const { acct, secret } = await setup();
    const r = receiver([() => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      expect(r.received).toHaveLength(1);
      const got = r.received[0];
      const body = JSON.parse(got.body);
      expect(body).toEqual({ id, type: "ping", event: "ping", timestamp: body.created_at, created_at: expect.any(String), data: expect.any(Object) });
      expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
      expect(got.headers.get("webhook-id")).toBe(id);
      const h = { id, timestamp: got.headers.get("webhook-timestamp")!, signature: got.headers.get("webhook-signature")! };
      expect(await independentVerify(secret, h, got.body, nowSeconds())).toBe(true);
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log.body.status).toBe("delivered");
      expect(log.body.attempts).toHaveLength(1);
      expect(log.body.attempts[0]).toMatchObject({ attempt: 1, status_code: 200, response: "ok" });
    } finally {
      r.close();
    }
  });

  test("500 then 200: retried with the same id, a new timestamp and a valid signature", async () => {
    const { acct, secret } = await setup();
    const r = receiver([() => new Response("down", { status: 500 }), () => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      expect(r.received).toHaveLength(1);
      const log1 = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log1.body.status).toBe("retrying");
      const next = Date.parse(log1.body.attempts[0].next_attempt_at) - t.clock.now();
      expect(next).toBeGreaterThanOrEqual(4000);
      expect(next).toBeLessThanOrEqual(6000);
      t.clock.advance(6001);
      await t.runJobs();
      expect(r.received).toHaveLength(2);
      const [a, b] = r.received;
      expect(b.headers.get("webhook-id")).toBe(a.headers.get("webhook-id"));
      expect(b.headers.get("webhook-timestamp")).not.toBe(a.headers.get("webhook-timestamp"));
      expect(b.body).toBe(a.body);
      const h = { id, timestamp: b.headers.get("webhook-timestamp")!, signature: b.headers.get("webhook-signature")! };
      expect(await independentVerify(secret, h, b.body, nowSeconds())).toBe(true);
      const log2 = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log2.body.status).toBe("delivered");
      expect(log2.body.attempts.map((x: { status_code: number }) => x.status_code)).toEqual([500, 200]);
    } finally {
      r.close();
    }
  });

  test("a 308 is a failure and its target is never contacted", async () => {
    const { acct } = await setup();
    const target = receiver([() => new Response("should not be here")]);
    const r = receiver([() => new Response(null, { status: 308, headers: { location: target.url } })]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      expect(target.received).toHaveLength(0);
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log.body.status).toBe("retrying");
      expect(log.body.attempts[0].status_code).toBe(308);
    } finally {
      target.close();
      r.close();
    }
  });

  test("410 stops all further attempts", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("gone", { status: 410 })]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      t.clock.advance(7 * 24 * 3600 * 1000);
      await t.runJobs();
      expect(r.received).toHaveLength(1);
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log.body.status).toBe("failed");
      expect(log.body.attempts).toHaveLength(1);
      // Given up on for good: no delivery job is left waiting for it.
      const waiting = [...(await t.service.jobs.listJobs({ status: "queued", kind: "webhook.deliver" })), ...(await t.service.jobs.listJobs({ status: "failed", kind: "webhook.deliver" }))];
      expect(waiting).toEqual([]);
    } finally {
      r.close();
    }
  });

  test("a slow receiver times out and the timeout is recorded", async () => {
    const { acct } = await setup({ VITRIN_WEBHOOK_TIMEOUT_MS: "200" });
    const r = receiver([async () => {
      await Bun.sleep(1500);
      return new Response("late");
    }]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log.body.status).toBe("retrying");
      expect(log.body.attempts[0].status_code).toBeNull();
      expect(log.body.attempts[0].error).toContain("timeout");
    } finally {
      r.close();
    }
  });

  test("429 with Retry-After waits at least that long", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("slow down", { status: 429, headers: { "retry-after": "120" } }), () => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(Date.parse(log.body.attempts[0].next_attempt_at) - t.clock.now()).toBe(120_000);
      t.clock.advance(60_000);
      await t.runJobs();
      expect(r.received).toHaveLength(1);
      t.clock.advance(60_000);
      await t.runJobs();
      expect(r.received).toHaveLength(2);
    } finally {
      r.close();
    }
  });

  test("after a rotation both secrets sign for 24 hours, then only the new one", async () => {
    const { acct, secret: old } = await setup();
    const r = receiver([() => new Response("ok")]);
    try {
      const rotated = await t.json("POST", "/v1/webhooks/secret/rotate", { token: acct.token });
      const fresh = rotated.body.secret as string;
      expect(fresh).not.toBe(old);
      await ping(acct.token, r.url);
      await t.runJobs();
      const a = r.received[0];
      const h = { id: a.headers.get("webhook-id")!, timestamp: a.headers.get("webhook-timestamp")!, signature: a.headers.get("webhook-signature")! };
      expect(h.signature.split(" ")).toHaveLength(2);
      expect(await independentVerify(old, h, a.body, nowSeconds())).toBe(true);
      expect(await independentVerify(fresh, h, a.body, nowSeconds())).toBe(true);
      t.clock.advance(24 * 3600 * 1000 + 1);
      await ping(acct.token, r.url);
      await t.runJobs();
      const b = r.received[1];
      const h2 = { id: b.headers.get("webhook-id")!, timestamp: b.headers.get("webhook-timestamp")!, signature: b.headers.get("webhook-signature")! };
      expect(h2.signature.split(" ")).toHaveLength(1);
      expect(await independentVerify(old, h2, b.body, nowSeconds())).toBe(false);
      expect(await independentVerify(fresh, h2, b.body, nowSeconds())).toBe(true);
    } finally {
      r.close();
    }
  });

  test("redeliver sends the same message again with the same id", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      const res = await t.json("POST", `/v1/webhooks/deliveries/${id}/redeliver`, { token: acct.token });
      expect(res.status).toBe(202);
      await t.runJobs();
      expect(r.received).toHaveLength(2);
      expect(r.received[1].headers.get("webhook-id")).toBe(id);
      expect(r.received[1].body).toBe(r.received[0].body);
    } finally {
      r.close();
    }
  });

  test("deliveries are listed per account and another account's are 404", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      const list = await t.json("GET", "/v1/webhooks/deliveries", { token: acct.token });
      expect(list.body.data.map((m: { id: string }) => m.id)).toEqual([id]);
      const other = await t.newAccount();
      expect((await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: other.token })).status).toBe(404);
      expect((await t.json("POST", `/v1/webhooks/deliveries/${id}/redeliver`, { token: other.token })).status).toBe(404);
      expect((await t.json("GET", "/v1/webhooks/deliveries", { token: other.token })).body.data).toEqual([]);
    } finally {
      r.close();
    }
  });

  test("with private networks refused, a loopback receiver is refused up front and never contacted", async () => {
    const { acct } = await setup({ VITRIN_ALLOW_PRIVATE_NETWORKS: "false" });
    const r = receiver([() => new Response("ok")]);
    try {
      const res = await t.json("POST", "/v1/webhooks/test", { token: acct.token, body: { url: r.url } });
      expect(res.status).toBe(422);
      expect(res.body.details[0].field).toBe("url");
      await t.runJobs();
      expect(r.received).toHaveLength(0);
    } finally {
      r.close();
    }
  });
});

describe("delivery jobs (one per account)", () => {
  /** A receiver that holds each request until released, counting how many it holds at once. */
  function heldReceiver(holdMs = 0) {
    let open = 0;
    let most = 0;
    const ids: string[] = [];
    const holds: (() => void)[] = [];
    let hold = false;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        ids.push(req.headers.get("webhook-id")!);
        open++;
        most = Math.max(most, open);
        if (hold) await new Promise<void>((resolve) => holds.push(resolve));
        else if (holdMs) await Bun.sleep(holdMs);
        open--;
        return new Response("ok");
      },
    });
    return {
      url: `http://127.0.0.1:${server.port}/hook`,
      ids,
      most: () => most,
      hold() {
        hold = true;
      },
      /** Answers the held requests and stops holding. */
      release() {
        hold = false;
        for (const r of holds.splice(0)) r();
      },
      close: () => server.stop(true),
    };
  }

  const waitFor = async (what: string, ok: () => boolean) => {
    for (let i = 0; i < 500 && !ok(); i++) await Bun.sleep(10);
    if (!ok()) throw new Error(`timed out waiting for ${what}`);
  };

  /** A ping whose delivery is under way (its account's job claimed, the receiver holding the request). */
  async function pingHeld(token: string, r: ReturnType<typeof heldReceiver>) {
    r.hold();
    const id = await ping(token, r.url);
    expect(await t.service.jobs.tick()).toBe(1);
    await waitFor("the first delivery", () => r.ids.length === 1);
    return id;
  }

  test("a burst to one account is sent by one job, at most 8 at a time, each message once with its attempt logged", async () => {
    const { acct } = await setup();
    const r = heldReceiver(20);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await ping(acct.token, r.url));
      await t.runJobs();
      expect([...r.ids].sort()).toEqual([...ids].sort());
      expect(r.most()).toBeGreaterThan(1);
      expect(r.most()).toBeLessThanOrEqual(8);
      const jobs = await t.service.jobs.listJobs({ kind: "webhook.deliver" });
      expect(jobs.map((j) => j.status)).toEqual(["succeeded"]);
      const list = await t.json("GET", "/v1/webhooks/deliveries?limit=100", { token: acct.token });
      expect(list.body.data).toHaveLength(30);
      for (const m of list.body.data) {
        expect(m.status).toBe("delivered");
        expect(m.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([[1, 200]]);
      }
    } finally {
      r.close();
    }
  });

  test("a message emitted while the account's job is sending is delivered too, once", async () => {
    const { acct } = await setup();
    const r = heldReceiver();
    try {
      const first = await pingHeld(acct.token, r);
      const second = await ping(acct.token, r.url);
      r.release();
      await t.runJobs();
      expect([...r.ids].sort()).toEqual([first, second].sort());
      for (const id of [first, second]) {
        expect((await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token })).body.status).toBe("delivered");
      }
    } finally {
      r.close();
    }
  });

  test("a redelivery asked for while an attempt is under way sends the message again after it", async () => {
    const { acct } = await setup();
    const r = heldReceiver();
    try {
      const id = await pingHeld(acct.token, r);
      expect((await t.json("POST", `/v1/webhooks/deliveries/${id}/redeliver`, { token: acct.token })).status).toBe(202);
      r.release();
      await t.runJobs();
      expect(r.ids).toEqual([id, id]);
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log.body.status).toBe("delivered");
      expect(log.body.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2]);
    } finally {
      r.close();
    }
  });

  test("a redelivery after giving up starts a new retry schedule, and attempts keep counting", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("gone", { status: 410 }), () => new Response("down", { status: 500 }), () => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      await t.runJobs();
      expect((await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token })).body.status).toBe("failed");
      await t.json("POST", `/v1/webhooks/deliveries/${id}/redeliver`, { token: acct.token });
      await t.runJobs();
      const retrying = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(retrying.body.status).toBe("retrying");
      // The first step of the schedule again: about 5 s.
      const wait = Date.parse(retrying.body.attempts[1].next_attempt_at) - t.clock.now();
      expect(wait).toBeGreaterThanOrEqual(4000);
      expect(wait).toBeLessThanOrEqual(6000);
      t.clock.advance(6001);
      await t.runJobs();
      const log = await t.json("GET", `/v1/webhooks/deliveries/${id}`, { token: acct.token });
      expect(log.body.status).toBe("delivered");
      expect(log.body.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 410],
        [2, 500],
        [3, 200],
      ]);
      expect(r.received).toHaveLength(3);
    } finally {
      r.close();
    }
  });

  test("shutdown winds the account's job down: sends under way are recorded, the rest wait for the next run", async () => {
    const { acct } = await setup();
    const r = heldReceiver(50);
    try {
      for (let i = 0; i < 30; i++) await ping(acct.token, r.url);
      t.service.jobs.start();
      await waitFor("the first deliveries", () => r.ids.length >= 8);
      const stopped = await t.service.jobs.stop({ deadlineMs: 10_000 });
      // It returned of itself, well before the deadline; nothing had to be handed back.
      expect(stopped).toEqual({ finished: 1, released: 0 });
      const sent = new Set(r.ids);
      expect(sent.size).toBe(r.ids.length);
      expect(sent.size).toBeLessThan(30);
      const list = await t.json("GET", "/v1/webhooks/deliveries?limit=100", { token: acct.token });
      expect(list.body.data).toHaveLength(30);
      for (const m of list.body.data) expect([m.id, m.status]).toEqual([m.id, sent.has(m.id) ? "delivered" : "pending"]);
      const next = await t.service.jobs.listJobs({ status: "queued", kind: "webhook.deliver" });
      expect(next).toHaveLength(1);
      expect(next[0]!.runAt).toBeLessThanOrEqual(t.clock.now());
    } finally {
      r.close();
    }
  });

  test("/metrics counts the messages waiting and how long the oldest has been due", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("down", { status: 503 }), () => new Response("ok")]);
    try {
      const metric = async (name: string) => {
        const text = await (await t.call("GET", "/metrics")).text();
        return Number(text.match(new RegExp(`^${name} (\\S+)$`, "m"))?.[1]);
      };
      await ping(acct.token, r.url);
      await ping(acct.token, r.url);
      t.clock.advance(2000);
      expect(await metric("vitrin_webhook_messages_waiting")).toBe(2);
      expect(await metric("vitrin_webhook_oldest_due_seconds")).toBe(2);
      await t.runJobs();
      // One delivered, one waiting for its retry (not yet due).
      expect(await metric("vitrin_webhook_messages_waiting")).toBe(1);
      expect(await metric("vitrin_webhook_oldest_due_seconds")).toBe(0);
      t.clock.advance(6001);
      await t.runJobs();
      expect(await metric("vitrin_webhook_messages_waiting")).toBe(0);
    } finally {
      r.close();
    }
  });

  test("a message whose delivery job is gone is sent once the worker resumes", async () => {
    const { acct } = await setup();
    const r = receiver([() => new Response("ok")]);
    try {
      const id = await ping(acct.token, r.url);
      const { jobs } = t.service.db.schema;
      await t.service.db.tx((tx) => tx.delete(jobs));
      await t.runJobs();
      expect(r.received).toHaveLength(0);
      expect(await t.service.webhooks.resume()).toBe(1);
      await t.runJobs();
      expect(r.received.map((x) => x.headers.get("webhook-id"))).toEqual([id]);
      expect(await t.service.webhooks.resume()).toBe(0);
    } finally {
      r.close();
    }
  });
});
