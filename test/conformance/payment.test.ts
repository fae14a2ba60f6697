// The payment kit run against every payment plugin: manual, stripe (the real SDK against a Stripe stand-in on
// loopback) and the example folder plugins payment-sandbox and payment-banktransfer (bundled with its npm package), with
// the kit playing each provider.
import { afterAll } from "bun:test";
import { createManualPayment } from "../../plugins/payment-manual";
import { createStripePayment } from "../../plugins/payment-stripe";
import { signatureHeader } from "../../examples/plugins/payment-sandbox";
import { startFakeStripe } from "../support/fake-stripe";
import { bundledExamplePlugin, examplePlugin } from "./example-plugins";
import { paymentConformance, type SignedNotice, type StartedPayment } from "./payment";

paymentConformance("manual", async () => createManualPayment("http://vitrin.test"));

const stripe = startFakeStripe();
afterAll(() => stripe.close());
const WEBHOOK_SECRET = "whsec_kit_0123456789";
const STRIPE_EVENTS = { paid: "checkout.session.completed", failed: "checkout.session.async_payment_failed", expired: "checkout.session.expired" } as const;

paymentConformance(
  "stripe",
  async () => {
    const plugin = createStripePayment({ secretKey: "sk_test_kit", webhookSecret: WEBHOOK_SECRET, apiUrl: stripe.url });
    await plugin.init?.();
    return plugin;
  },
  {
    async notice(payment, outcome, eventId): Promise<SignedNotice> {
      const id = payment.providerReference!;
      const session = outcome === "paid" ? stripe.pay(id) : stripe.sessions.get(id)!;
      if (outcome === "expired") session.status = "expired";
      const { body, signature } = await stripe.event(STRIPE_EVENTS[outcome], session, WEBHOOK_SECRET, eventId);
      return { body, headers: { "content-type": "application/json", "stripe-signature": signature } };
    },
    async pay(payment) {
      stripe.pay(payment.providerReference!);
    },
  },
);

const SANDBOX_SECRET = "sandbox-secret-0123456789";
const SANDBOX_EVENTS = { paid: "payment.succeeded", failed: "payment.failed", expired: "payment.expired" } as const;
async function sandboxNotice(payment: StartedPayment, outcome: keyof typeof SANDBOX_EVENTS, eventId: string): Promise<SignedNotice> {
  const body = JSON.stringify({ id: eventId, type: SANDBOX_EVENTS[outcome], data: { reference: payment.providerReference } });
  return { body, headers: { "content-type": "application/json", "sandbox-signature": await signatureHeader(SANDBOX_SECRET, body) } };
}

paymentConformance("example folder plugin payment-sandbox", () => examplePlugin("payment", "sandbox", { VITRIN_PLUGIN_SANDBOX_SECRET: SANDBOX_SECRET }), {
  notice: sandboxNotice,
  // The sandbox learns of a payment the way it learns of everything: from its signed webhook.
  async pay(payment, plugin) {
    const n = await sandboxNotice(payment, "paid", `evt_kit_pay_${payment.request.topUpId}`);
    await plugin.parseWebhook!(n.body, new Headers(n.headers));
  },
});

// Bank transfers have no provider to notify or ask: an operator books them by hand, so the kit only plays the payer.
paymentConformance("example npm plugin payment-banktransfer", () =>
  bundledExamplePlugin("payment", "banktransfer", "payment-banktransfer/src/index.ts", { VITRIN_PLUGIN_BANKTRANSFER_INSTRUCTIONS_URL: "https://shop.example/pay-by-transfer" }),
);
