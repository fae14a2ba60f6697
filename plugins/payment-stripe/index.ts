// Payments through Stripe Checkout: a Checkout Session per top-up, and signed webhooks that report the outcome.
import type Stripe from "stripe";
import { ConfigError, definePlugin, optionalText, optionalUrl, PaymentSignatureError, type PaymentNotice, type PaymentOutcome, type PaymentPlugin, type PluginSettings } from "../../src/plugins";

export type StripeSettings = {
  secretKey: string | null;
  webhookSecret: string | null;
  /** Another API base (a proxy, or a local stand-in speaking Stripe's wire format in tests). */
  apiUrl?: string | null;
};

/** VITRIN_STRIPE_*, read at start through the plugin kit and listed in the configuration table. */
export const stripeSettings: PluginSettings<StripeSettings> = {
  secretKey: {
    env: "VITRIN_STRIPE_SECRET_KEY",
    unset: "",
    default: "(unset)",
    doc: "Stripe secret key (`sk_…`); required when VITRIN_PAYMENT=stripe.",
    parse: optionalText,
  },
  webhookSecret: {
    env: "VITRIN_STRIPE_WEBHOOK_SECRET",
    unset: "",
    default: "(unset)",
    doc: "Signing secret (`whsec_…`) of the Stripe webhook endpoint `{public_url}/v1/payments/stripe/webhook`; required with Stripe.",
    parse: optionalText,
  },
  apiUrl: {
    env: "VITRIN_STRIPE_API_URL",
    unset: "",
    default: "(Stripe's own)",
    doc: "Another base URL for the Stripe API (a proxy, or a local stand-in in tests).",
    parse: optionalUrl,
  },
};

/** Stripe allows a Checkout Session to live between 30 minutes and 24 hours. */
function sessionExpiry(expiresAt: number, now = Date.now()): number {
  const min = now + 31 * 60_000;
  const max = now + 24 * 3600_000 - 60_000;
  return Math.floor(Math.min(Math.max(expiresAt, min), max) / 1000);
}

function outcomeOf(session: Stripe.Checkout.Session): PaymentOutcome {
  if (session.status === "complete" && (session.payment_status === "paid" || session.payment_status === "no_payment_required")) return "paid";
  if (session.status === "expired") return "expired";
  return "pending";
}

/**
 * Both keys are set and the secret key is one (not a publishable pk_… key). A ConfigError: the CLI prints it as one
 * line (no stack trace) and exits 2, as for the core's settings.
 */
function checkKeys(settings: StripeSettings): void {
  const missing = [
    settings.secretKey ? null : "VITRIN_STRIPE_SECRET_KEY",
    settings.webhookSecret ? null : "VITRIN_STRIPE_WEBHOOK_SECRET",
  ].filter(Boolean);
  if (missing.length > 0) throw new ConfigError(`VITRIN_PAYMENT=stripe needs ${missing.join(" and ")}`);
  if (!/^(sk|rk)_(test|live)_\S+$/.test(settings.secretKey!)) {
    throw new ConfigError("VITRIN_STRIPE_SECRET_KEY must be a Stripe secret key (sk_live_…, sk_test_… or a restricted rk_…)");
  }
  // Any other value would make every payment event fail its signature check, and no top-up would ever be paid.
  if (!/^whsec_\S+$/.test(settings.webhookSecret!)) {
    throw new ConfigError("VITRIN_STRIPE_WEBHOOK_SECRET must be the webhook endpoint's signing secret (whsec_…), from Stripe's dashboard or `stripe listen`");
  }
}

export function createStripePayment(settings: StripeSettings): PaymentPlugin {
  let stripe: Stripe | null = null;
  let crypto: ReturnType<typeof Stripe.createSubtleCryptoProvider> | null = null;
  const client = (): Stripe => {
    if (!stripe) throw new Error("the Stripe plugin is not initialised");
    return stripe;
  };

  return {
    slot: "payment",
    name: "stripe",
    async init() {
      checkKeys(settings);
      const api = settings.apiUrl ? new URL(settings.apiUrl) : null;
      // Loaded here rather than at the top: the SDK costs start-up time and memory for every vitrin not using Stripe.
      const { default: StripeSdk } = await import("stripe");
      crypto = StripeSdk.createSubtleCryptoProvider();
      stripe = new StripeSdk(settings.secretKey!, {
        // fetch works the same on Bun and in a compiled binary; the Node http client is not needed.
        httpClient: StripeSdk.createFetchHttpClient(),
        maxNetworkRetries: 2,
        timeout: 20_000,
        ...(api
          ? {
              host: api.hostname,
              port: Number(api.port || (api.protocol === "https:" ? 443 : 80)),
              protocol: api.protocol === "https:" ? "https" : "http",
            }
          : {}),
      });
    },
    async createPayment(req) {
      const session = await client().checkout.sessions.create(
        {
          mode: "payment",
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: req.currency,
                unit_amount: req.amount,
                product_data: { name: `${req.credits} vitrin credits` },
              },
            },
          ],
          client_reference_id: req.topUpId,
          metadata: { top_up_id: req.topUpId, account_id: req.accountId },
          payment_intent_data: { metadata: { top_up_id: req.topUpId } },
          success_url: `${req.successUrl}&session_id={CHECKOUT_SESSION_ID}`,
          cancel_url: req.cancelUrl,
          expires_at: sessionExpiry(req.expiresAt),
        },
        // Retrying a top-up's creation can never open a second session.
        { idempotencyKey: req.topUpId },
      );
      if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
      return { paymentUrl: session.url, providerReference: session.id };
    },
    async parseWebhook(rawBody, headers): Promise<PaymentNotice | null> {
      const signature = headers.get("stripe-signature");
      if (!signature) throw new PaymentSignatureError("the Stripe-Signature header is missing");
      let event: Stripe.Event;
      try {
        // The synchronous constructEvent does not work on Bun; the async one uses WebCrypto.
        event = await client().webhooks.constructEventAsync(rawBody, signature, settings.webhookSecret!, undefined, crypto ?? undefined);
      } catch (e) {
        throw new PaymentSignatureError((e as Error).message);
      }
      if (!event.type.startsWith("checkout.session.")) return { eventId: event.id, type: event.type, topUpId: null, outcome: null };
      const session = event.data.object as Stripe.Checkout.Session;
      const topUpId = session.client_reference_id ?? session.metadata?.top_up_id ?? null;
      let outcome: PaymentOutcome | null = null;
      switch (event.type) {
        case "checkout.session.completed":
          // With delayed payment methods the session completes unpaid; async_payment_succeeded follows.
          outcome = session.payment_status === "paid" || session.payment_status === "no_payment_required" ? "paid" : "pending";
          break;
        case "checkout.session.async_payment_succeeded":
          outcome = "paid";
          break;
        case "checkout.session.async_payment_failed":
          outcome = "failed";
          break;
        case "checkout.session.expired":
          outcome = "expired";
          break;
      }
      return { eventId: event.id, type: event.type, topUpId, outcome };
    },
    async lookupPayment(reference) {
      return outcomeOf(await client().checkout.sessions.retrieve(reference));
    },
  };
}

export default definePlugin({
  slot: "payment",
  name: "stripe",
  description: "Stripe Checkout; needs VITRIN_STRIPE_SECRET_KEY and VITRIN_STRIPE_WEBHOOK_SECRET.",
  settings: stripeSettings,
  create: ({ settings }) => createStripePayment(settings),
});
