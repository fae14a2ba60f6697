// Signed webhook delivery to real loopback receivers: payload and signature, retries, redirects, 410, timeouts,
// Retry-After, rotation, redelivery and the private-network rule.
import { afterEach, describe, expect, test } from "bun:test";
import { sign } from "../src/webhooks/sign";
import { independentVerify, receiver, t, setup, ping, nowSeconds, closeService } from "./support/webhook-receiver";

afterEach(closeService);

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
