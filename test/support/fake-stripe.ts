// A stand-in for the Stripe API on loopback, speaking its wire format for the Checkout Session endpoints we use
// (form-encoded requests, JSON objects back, Idempotency-Key honoured), so the real stripe SDK can be tested here.
import Stripe from "stripe";

export type FakeSession = {
  id: string;
  object: "checkout.session";
  mode: string;
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid" | "no_payment_required";
  url: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  amount_total: number;
  currency: string;
  success_url: string;
  cancel_url: string;
  expires_at: number;
  created: number;
  livemode: false;
};

export type FakeStripe = {
  url: string;
  sessions: Map<string, FakeSession>;
  requests: { method: string; path: string; form: Record<string, string>; idempotencyKey: string | null }[];
  pay(id: string): FakeSession;
  /** A webhook body and Stripe-Signature header for an event about a session, signed with `secret`. */
  event(type: string, session: FakeSession, secret: string, id?: string): Promise<{ body: string; signature: string }>;
  close(): void;
};

let counter = 0;
const rid = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

function error(status: number, message: string) {
  return Response.json({ error: { type: "invalid_request_error", message } }, { status });
}

export function startFakeStripe(): FakeStripe {
  const sessions = new Map<string, FakeSession>();
  const byIdempotencyKey = new Map<string, FakeSession>();
  const requests: FakeStripe["requests"] = [];
  const signer = new Stripe("sk_test_fake");
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const form = Object.fromEntries(new URLSearchParams(req.method === "POST" ? await req.text() : url.search));
      const idempotencyKey = req.headers.get("idempotency-key");
      requests.push({ method: req.method, path: url.pathname, form, idempotencyKey });
      if (!req.headers.get("authorization")?.startsWith("Bearer sk_")) return error(401, "Invalid API key provided");
      if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
        if (idempotencyKey && byIdempotencyKey.has(idempotencyKey)) return Response.json(byIdempotencyKey.get(idempotencyKey));
        const required = ["mode", "success_url", "line_items[0][price_data][currency]", "line_items[0][price_data][unit_amount]"];
        const missing = required.filter((k) => !(k in form));
        if (missing.length) return error(400, `Missing required param: ${missing[0]}`);
        const id = rid("cs_test");
        const metadata: Record<string, string> = {};
        for (const [k, v] of Object.entries(form)) {
          const m = /^metadata\[(.+)\]$/.exec(k);
          if (m) metadata[m[1]] = v;
        }
        const session: FakeSession = {
          id,
          object: "checkout.session",
          mode: form.mode,
          status: "open",
          payment_status: "unpaid",
          url: `https://checkout.stripe.test/c/pay/${id}`,
          client_reference_id: form.client_reference_id ?? null,
          metadata,
          amount_total: Number(form["line_items[0][price_data][unit_amount]"]) * Number(form["line_items[0][quantity]"] ?? 1),
          currency: form["line_items[0][price_data][currency]"],
          success_url: form.success_url,
          cancel_url: form.cancel_url,
          expires_at: Number(form.expires_at ?? Math.floor(Date.now() / 1000) + 86400),
          created: Math.floor(Date.now() / 1000),
          livemode: false,
        };
        sessions.set(id, session);
        if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, session);
        return Response.json(session);
      }
      const m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (req.method === "GET" && m) {
        const session = sessions.get(m[1]);
        return session ? Response.json(session) : error(404, `No such checkout.session: '${m[1]}'`);
      }
      return error(404, `Unrecognized request URL (${req.method}: ${url.pathname})`);
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    sessions,
    requests,
    pay(id) {
      const s = sessions.get(id)!;
      s.status = "complete";
      s.payment_status = "paid";
      return s;
    },
    async event(type, session, secret, id = rid("evt")) {
      const body = JSON.stringify({
        id,
        object: "event",
        api_version: "2025-01-27.acacia",
        created: Math.floor(Date.now() / 1000),
        type,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        data: { object: { ...session } },
      });
      const signature = await signer.webhooks.generateTestHeaderStringAsync({ payload: body, secret });
      return { body, signature };
    },
    close: () => server.stop(true),
  };
}
