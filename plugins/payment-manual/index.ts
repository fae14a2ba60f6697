// Payments confirmed by hand: the payment URL opens a page served by vitrin, and an operator marks the top-up paid
// (POST /v1/admin/top-ups/:id/complete or `vitrin topups complete`). The default, for self-hosters without a provider.
import { definePlugin, optionalText, type PaymentPlugin, type PluginSettings } from "../../src/plugins";

type Settings = { instructions: string | null };

const settings: PluginSettings<Settings> = {
  instructions: {
    env: "VITRIN_MANUAL_PAYMENT_INSTRUCTIONS",
    default: "(unset)",
    unset: "",
    doc: "How payers pay a manual top-up (bank details, a contact), shown on its payment page under the amount; `\\n` (or a line break) starts a new line, a blank line a new paragraph. Unset, the page asks them to pay as agreed with the operator.",
    parse: optionalText,
  },
};

export function createManualPayment(publicUrl: string, instructions: string | null = null): PaymentPlugin {
  return {
    slot: "payment",
    name: "manual",
    operatorConfirms: true,
    payerInstructions: instructions,
    async createPayment({ topUpId }) {
      return { paymentUrl: `${publicUrl}/pay/manual/${topUpId}`, providerReference: topUpId };
    },
  };
}

export default definePlugin({
  slot: "payment",
  name: "manual",
  description: "An operator confirms each top-up by hand; the payer sees a page served by vitrin.",
  settings,
  create: ({ config, settings }) => createManualPayment(config.publicUrl, settings.instructions),
});
