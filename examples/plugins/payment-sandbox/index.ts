// An example payment plugin loaded from a folder: a sandbox provider for staging and demos. Its checkout is any page
// you point it at, and it reports outcomes by signed webhooks, like a real provider. Copy the folder next to the
// vitrin binary (plugins/payment-sandbox/) and start with VITRIN_PAYMENT=sandbox.
//
// Settings (declared below, so vitrin checks them at start and lists them; a folder plugin's are named VITRIN_PLUGIN_<NAME>_<SETTING>):
//   VITRIN_PLUGIN_SANDBOX_SECRET        required: the key webhooks are signed with (at least 16 characters)
//   VITRIN_PLUGIN_SANDBOX_CHECKOUT_URL  optional: where payers are sent (gets ?reference=&amount=&currency=&return=);
//                                       by default straight to vitrin's return page, as if they had paid
//
// Webhooks: POST {public_url}/v1/payments/sandbox/webhook with the header
//   Sandbox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>
// and a JSON body {"id": "evt_…", "type": "payment.succeeded" | "payment.failed" | "payment.expired",
//                  "data": {"reference": "<the provider reference createPayment returned>"}}.
//
// Only types are imported from vitrin (erased at run time); everything else comes from `host`, because a compiled
// binary has no node_modules to import from.
import type { PluginHost } from "../../../src/plugins/host";
import type { PaymentNotice, PaymentOutcome, PaymentPlugin } from "../../../src/plugins";

const TOLERANCE_SECONDS = 300;

const outcomes: Record<string, PaymentOutcome> = {
  "payment.succeeded": "paid",
  "payment.failed": "failed",
  "payment.expired": "expired",
};

/** HMAC-SHA256 in hex, with the Web Crypto API every Bun has. */
async function sign(secret: string, payload: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload));
  return Buffer.from(mac).toString("hex");
}

/** Compares without leaking how many leading characters matched. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The header value a sender puts on a webhook body (exported for tests and for whoever plays the provider). */
export async function signatureHeader(secret: string, rawBody: string, at = Math.floor(Date.now() / 1000)): Promise<string> {
  return `t=${at},v1=${await sign(secret, `${at}.${rawBody}`)}`;
}

export default function sandboxPayment(host: PluginHost) {
  const { t, Value, PaymentSignatureError } = host;
  const Event = t.Object({
    id: t.String({ minLength: 1, maxLength: 200 }),
    type: t.String({ minLength: 1, maxLength: 100 }),
    data: t.Object({ reference: t.String({ minLength: 1, maxLength: 200 }) }),
  });

  return host.definePlugin({
    slot: "payment",
    name: "sandbox",
    description: "Example plugin: a sandbox provider whose outcomes arrive as signed webhooks.",
    settings: {
      secret: {
        env: "VITRIN_PLUGIN_SANDBOX_SECRET",
        default: "(unset)",
        unset: "",
        doc: "Example sandbox payment plugin: the key its webhooks are signed with (at least 16 characters); required with VITRIN_PAYMENT=sandbox.",
        parse: (raw: string) => raw.trim(),
      },
      checkoutUrl: {
        env: "VITRIN_PLUGIN_SANDBOX_CHECKOUT_URL",
        default: "(vitrin's return page)",
        unset: "",
        doc: "Example sandbox payment plugin: where payers are sent (gets ?reference=&amount=&currency=&return=).",
        parse: host.parse.optionalUrl,
      },
    },
    create(ctx): PaymentPlugin {
      const { secret, checkoutUrl } = ctx.settings;
      // What the provider last said of each payment. A real provider keeps this on its side; lookupPayment asks it.
      const known = new Map<string, PaymentOutcome>();
      const log = ctx.logger;

      return {
        slot: "payment",
        name: "sandbox",
        async init() {
          if (secret.length < 16) throw new host.ConfigError("VITRIN_PAYMENT=sandbox needs VITRIN_PLUGIN_SANDBOX_SECRET (at least 16 characters)");
          log.info("sandbox payments enabled: no money moves", { host_api: host.apiVersion, vitrin: host.version });
        },
        async createPayment(req) {
          const reference = `sbx_${req.topUpId}`;
          known.set(reference, "pending");
          if (!checkoutUrl) return { paymentUrl: req.successUrl, providerReference: reference };
          const url = new URL(checkoutUrl);
          url.searchParams.set("reference", reference);
          url.searchParams.set("amount", String(req.amount));
          url.searchParams.set("currency", req.currency);
          url.searchParams.set("return", req.successUrl);
          return { paymentUrl: url.toString(), providerReference: reference };
        },
        async parseWebhook(rawBody, headers): Promise<PaymentNotice | null> {
          const header = headers.get("sandbox-signature") ?? "";
          const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=", 2) as [string, string]));
          const at = Number(parts.t);
          if (!parts.v1 || !Number.isInteger(at)) throw new PaymentSignatureError("missing or malformed Sandbox-Signature header");
          if (Math.abs(Date.now() / 1000 - at) > TOLERANCE_SECONDS) throw new PaymentSignatureError("the signature is too old or from the future");
          if (!sameText(await sign(secret, `${at}.${rawBody}`), parts.v1)) throw new PaymentSignatureError("the signature does not match");

          let event: unknown;
          try {
            event = JSON.parse(rawBody);
          } catch {
            throw new PaymentSignatureError("the body is not JSON");
          }
          if (!Value.Check(Event, event)) {
            const first = [...Value.Errors(Event, event)][0];
            throw new PaymentSignatureError(`the event is malformed at ${first?.path || "/"}: ${first?.message ?? "invalid"}`);
          }
          const outcome = outcomes[event.type] ?? null;
          const reference = event.data.reference;
          if (outcome) known.set(reference, outcome);
          // Our references are sbx_<top-up id>; anything else concerns no top-up of ours.
          const topUpId = reference.startsWith("sbx_") ? reference.slice(4) : null;
          return { eventId: event.id, type: event.type, topUpId, outcome: topUpId ? outcome : null };
        },
        async lookupPayment(reference) {
          return known.get(reference) ?? "pending";
        },
      };
    },
  });
}
