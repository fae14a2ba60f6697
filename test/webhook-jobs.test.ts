// Webhook delivery jobs, one per account: bursts sent at most 8 at a time, messages and redeliveries during a send,
// giving up and starting again, shutdown, metrics, and a job that is gone.
import { afterEach, describe, expect, test } from "bun:test";
import { receiver, t, setup, ping, closeService } from "./support/webhook-receiver";

afterEach(closeService);

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
