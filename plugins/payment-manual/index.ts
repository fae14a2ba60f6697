// Payments confirmed by hand: the payment URL opens a page served by vitrin, and an operator marks the top-up paid
// (POST /v1/admin/top-ups/:id/complete or `vitrin topups complete`). The default, for self-hosters without a provider.
import { definePlugin, type PaymentPlugin } from "../../src/plugins";

export function createManualPayment(publicUrl: string): PaymentPlugin {
  return {
    slot: "payment",
    name: "manual",
    operatorConfirms: true,
    async createPayment({ topUpId }) {
      return { paymentUrl: `${publicUrl}/pay/manual/${topUpId}`, providerReference: topUpId };
    },
  };
}

export default definePlugin({
  slot: "payment",
  name: "manual",
  description: "An operator confirms each top-up by hand; the payer sees a page served by vitrin.",
  create: ({ config }) => createManualPayment(config.publicUrl),
});
