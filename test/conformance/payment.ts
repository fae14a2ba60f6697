// The payment slot's conformance kit: the bun:test cases every payment plugin must pass. createPayment starts a payment
// the payer can open (the same one again on a retry); when the plugin reads webhooks, a notice signed as the provider
// signs it is read into the core's words (event id, top-up, outcome) the same way each time it arrives, so the core
// books it once, and anything not authentic is a PaymentSignatureError; when it can look payments up, they read
// "pending" until paid and "paid" from then on. The kit plays the provider through the hooks in the options.
import { describe, expect, test } from "bun:test";
import { PaymentSignatureError, type PaymentOutcome, type PaymentPlugin, type PaymentRequest } from "../../src/plugins";

/** A payment createPayment started, as the provider's side of the kit sees it. */
export type StartedPayment = { request: PaymentRequest; paymentUrl: string; providerReference?: string };

/** A notification as the provider would POST it: the raw body and its headers. */
export type SignedNotice = { body: string; headers: Record<string, string> };

export type PaymentConformanceOptions = {
  /**
   * Plays the provider sending a notification that `payment` ended with `outcome`, under event id `eventId`, signed
   * the way the provider signs. Required when the plugin has parseWebhook.
   */
  notice?(payment: StartedPayment, outcome: Exclude<PaymentOutcome, "pending">, eventId: string): Promise<SignedNotice>;
  /** Plays the payer paying (what lookupPayment must then report). Required when the plugin has lookupPayment. */
  pay?(payment: StartedPayment, plugin: PaymentPlugin): Promise<void>;
};

let counter = 0;

/** A top-up request like the core's, with a fresh top-up id. */
export function paymentRequest(over: Partial<PaymentRequest> = {}): PaymentRequest {
  const topUpId = `top_kit${Date.now().toString(36)}${(++counter).toString(36)}`;
  return {
    topUpId,
    accountId: "acc_kit",
    amount: 2000,
    currency: "usd",
    credits: 200,
    successUrl: `http://vitrin.test/pay/kit/return?top_up=${topUpId}`,
    cancelUrl: `http://vitrin.test/pay/kit/cancel?top_up=${topUpId}`,
    expiresAt: Date.now() + 3600_000,
    ...over,
  };
}

/** Declares the payment contract's tests for the plugin `make` returns (already initialised). */
export function paymentConformance(name: string, make: () => Promise<PaymentPlugin>, options: PaymentConformanceOptions = {}): void {
  const start = async (plugin: PaymentPlugin, request = paymentRequest()): Promise<StartedPayment> => ({ request, ...(await plugin.createPayment(request)) });

  describe(`payment conformance: ${name}`, () => {
    test("declares the payment slot, is ready, and the kit has a way to play its provider", async () => {
      const plugin = await make();
      expect(plugin.slot).toBe("payment");
      expect(plugin.name).toMatch(/^[a-z0-9][a-z0-9-]*$/);
      expect((await plugin.ready?.()) ?? { ok: true }).toMatchObject({ ok: true });
      // A plugin that reads webhooks or looks payments up is only checked if the kit can play its provider.
      expect({ webhooks: !!plugin.parseWebhook, lookups: !!plugin.lookupPayment }).toEqual({ webhooks: !!options.notice, lookups: !!options.pay });
    });

    test("createPayment gives the payer an absolute http(s) URL, and each top-up its own payment", async () => {
      const plugin = await make();
      const [a, b] = [await start(plugin), await start(plugin)];
      for (const p of [a, b]) {
        expect(new URL(p.paymentUrl).protocol).toMatch(/^https?:$/);
        if (p.providerReference !== undefined) expect(p.providerReference).toMatch(/\S/);
      }
      expect(a.providerReference ?? a.paymentUrl).not.toBe(b.providerReference ?? b.paymentUrl);
    });

    test("createPayment again for the same top-up gives the same payment (a retry never opens a second one)", async () => {
      const plugin = await make();
      const request = paymentRequest();
      const [a, b] = [await start(plugin, request), await start(plugin, request)];
      expect(b.paymentUrl).toBe(a.paymentUrl);
      expect(b.providerReference).toBe(a.providerReference);
    });

    if (options.notice) webhookConformance(make, start, options.notice);
    if (options.pay) lookupConformance(make, start, options.pay);
  });
}

type Start = (plugin: PaymentPlugin, request?: PaymentRequest) => Promise<StartedPayment>;
type Notice = NonNullable<PaymentConformanceOptions["notice"]>;

function webhookConformance(make: () => Promise<PaymentPlugin>, start: Start, notice: Notice): void {
  const read = (plugin: PaymentPlugin, n: SignedNotice) => plugin.parseWebhook!(n.body, new Headers(n.headers));
  const refused = async (plugin: PaymentPlugin, n: SignedNotice) => {
    const err = await read(plugin, n).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PaymentSignatureError);
    expect((err as Error).message.length).toBeGreaterThan(0);
  };

  test("a signed notice of each outcome is read as that outcome of that top-up, under its event id", async () => {
    const plugin = await make();
    for (const outcome of ["paid", "failed", "expired"] as const) {
      const payment = await start(plugin);
      const eventId = `evt_kit_${outcome}_${payment.request.topUpId}`;
      expect(await read(plugin, await notice(payment, outcome, eventId))).toMatchObject({ eventId, topUpId: payment.request.topUpId, outcome });
    }
  });

  test("the same notice arriving twice reads the same both times, so the core books the payment once", async () => {
    const plugin = await make();
    const payment = await start(plugin);
    const signed = await notice(payment, "paid", `evt_kit_twice_${payment.request.topUpId}`);
    const first = await read(plugin, signed);
    expect(first).toMatchObject({ topUpId: payment.request.topUpId, outcome: "paid" });
    expect(await read(plugin, signed)).toEqual(first);
  });

  test("a notice whose body was changed after signing is refused with PaymentSignatureError", async () => {
    const plugin = await make();
    const payment = await start(plugin);
    const signed = await notice(payment, "paid", `evt_kit_tamper_${payment.request.topUpId}`);
    // The same event, claiming another top-up: what an attacker would want to do with a real notice.
    await refused(plugin, { ...signed, body: signed.body.replaceAll(payment.request.topUpId, paymentRequest().topUpId) });
    await refused(plugin, { ...signed, body: `${signed.body} ` });
  });

  test("a notice without its signature, or with another notice's, is refused with PaymentSignatureError", async () => {
    const plugin = await make();
    const [a, b] = [await start(plugin), await start(plugin)];
    const [na, nb] = [await notice(a, "paid", `evt_kit_a_${a.request.topUpId}`), await notice(b, "paid", `evt_kit_b_${b.request.topUpId}`)];
    await refused(plugin, { body: na.body, headers: { "content-type": "application/json" } });
    await refused(plugin, { body: na.body, headers: nb.headers });
  });
}

function lookupConformance(make: () => Promise<PaymentPlugin>, start: Start, pay: NonNullable<PaymentConformanceOptions["pay"]>): void {
  test("lookupPayment says pending until the payer pays, then paid, and keeps saying paid", async () => {
    const plugin = await make();
    const payment = await start(plugin);
    expect(payment.providerReference).toBeDefined();
    expect(await plugin.lookupPayment!(payment.providerReference!)).toBe("pending");
    await pay(payment, plugin);
    expect(await plugin.lookupPayment!(payment.providerReference!)).toBe("paid");
    expect(await plugin.lookupPayment!(payment.providerReference!)).toBe("paid");
  });
}
