// An example payment plugin built from npm packages: payers pay by bank transfer, quoting a reference this plugin
// makes (with nanoid, bundled in), and an operator who sees the money arrive finds the top-up by that reference
// (`vitrin banktransfer find REFERENCE`) and books it (`vitrin topups complete TOP_UP_ID`). It is built into one
// JavaScript file with `bun build` (npm run build) and dropped into a plugins folder: docs/plugins.md, "Plugins from npm".
//
// Settings (a folder plugin's are named VITRIN_PLUGIN_<NAME>_<SETTING>):
//   VITRIN_PLUGIN_BANKTRANSFER_INSTRUCTIONS_URL  required with VITRIN_PAYMENT=banktransfer: your page with the bank
//                                                details (gets ?reference=&amount=&currency=&return=)
//
// Types come from the @vitrin/plugin-kit package (`import type`: erased when bundled); every value from `host`.
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CommandContext, PaymentPlugin, PaymentRequest, PluginHost } from "@vitrin/plugin-kit";
import { newReference, readReference } from "./reference";

type Settings = { instructionsUrl: string | null };
/** One line of the references file: which top-up a reference pays. */
type Issued = { reference: string; top_up_id: string; amount: number; currency: string; created_at: string };

/** Where the references are kept: a file of JSON lines in the data dir, appended to and never rewritten. */
const referencesFile = (dataDir: string) => join(dataDir, "banktransfer", "references.jsonl");

async function issued(dataDir: string): Promise<Issued[]> {
  const text = await readFile(referencesFile(dataDir), "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return "";
    throw e;
  });
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Issued);
}

/** `vitrin banktransfer find REFERENCE`: the top-up a transfer pays, from its reference as printed on the statement. */
async function find(ctx: CommandContext<Settings>): Promise<number> {
  // Typed as it stands on a statement, a reference may come in pieces: `find vt7k3q 9xamd` is one reference.
  const typed = ctx.args.join("");
  if (!typed) {
    console.error("usage: vitrin banktransfer find REFERENCE [--json]");
    return 2;
  }
  const reference = readReference(typed);
  if (!reference) {
    console.error(`"${ctx.args.join(" ")}" is not a transfer reference, or it was mistyped (its check character does not match)`);
    return 1;
  }
  const found = (await issued(ctx.config.dataDir)).find((i) => i.reference === reference);
  if (!found) {
    console.error(`no top-up has the reference ${reference}`);
    return 1;
  }
  // Amounts are in minor units: cents for EUR, whole yen for JPY.
  const money = new Intl.NumberFormat("en", { style: "currency", currency: found.currency.toUpperCase() });
  const amount = money.format(found.amount / 10 ** (money.resolvedOptions().maximumFractionDigits ?? 2));
  ctx.print(`${reference} pays top-up ${found.top_up_id} (${amount}); book it with: vitrin topups complete ${found.top_up_id}`, found);
  return 0;
}

export default function bankTransfer(host: PluginHost) {
  return host.definePlugin<"payment", Settings>({
    slot: "payment",
    name: "banktransfer",
    description: "Example plugin: payment by bank transfer with a reference per top-up, booked by an operator.",
    settings: {
      instructionsUrl: {
        env: "VITRIN_PLUGIN_BANKTRANSFER_INSTRUCTIONS_URL",
        default: "(unset)",
        unset: "",
        doc: "Example bank-transfer payment plugin: your page with the bank details (gets ?reference=&amount=&currency=&return=); required with VITRIN_PAYMENT=banktransfer.",
        parse: host.parse.optionalUrl,
      },
    },
    commands: [{ words: ["banktransfer", "find"], usage: "REFERENCE [--json]", description: "the top-up a bank transfer's reference pays", run: find }],
    create(ctx): PaymentPlugin {
      const { instructionsUrl } = ctx.settings;
      const dataDir = ctx.config.dataDir;
      // One reference per top-up, however often the core asks (a retried request must not open a second payment):
      // issuing is done one at a time, so two asks for the same top-up cannot both miss the file and both write.
      let issuing: Promise<unknown> = Promise.resolve();
      const referenceFor = (req: PaymentRequest): Promise<string> => {
        const next = issuing.then(async () => {
          const known = (await issued(dataDir)).find((i) => i.top_up_id === req.topUpId);
          if (known) return known.reference;
          const line: Issued = { reference: newReference(), top_up_id: req.topUpId, amount: req.amount, currency: req.currency, created_at: new Date().toISOString() };
          await appendFile(referencesFile(dataDir), `${JSON.stringify(line)}\n`);
          return line.reference;
        });
        issuing = next.catch(() => undefined);
        return next;
      };
      return {
        slot: "payment",
        name: "banktransfer",
        // The money reaches the operator's bank account, not an API: `vitrin topups complete` books it.
        operatorConfirms: true,
        async init() {
          if (!instructionsUrl) throw new Error("VITRIN_PAYMENT=banktransfer needs VITRIN_PLUGIN_BANKTRANSFER_INSTRUCTIONS_URL (your page with the bank details)");
          await mkdir(join(dataDir, "banktransfer"), { recursive: true });
        },
        async createPayment(req) {
          const reference = await referenceFor(req);
          const url = new URL(instructionsUrl!);
          url.searchParams.set("reference", reference);
          url.searchParams.set("amount", String(req.amount));
          url.searchParams.set("currency", req.currency);
          url.searchParams.set("return", req.successUrl);
          return { paymentUrl: url.toString(), providerReference: reference };
        },
      };
    },
  });
}
