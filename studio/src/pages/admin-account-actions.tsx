// The operator's actions on one account: `Grant credits` (amount, description) and `Login link` (a one-time URL with
// a copy button and its expiry); its API tokens are admin-account-tokens.tsx.
import { useState } from "preact/hooks";
import { api, fieldError } from "../api";
import { messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { CopyField } from "../components/copy-field";
import { TextField } from "../components/field";
import { useSubmit } from "../components/use-submit";
import { formatDate, formatNumber, useLang } from "../i18n";
import { useAdminMessages } from "../i18n/admin";

export function GrantCredits({ accountId, onGranted }: { accountId: string; onGranted(): void }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const [amount, setAmount] = useState("");
  const [description, setDescription] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, fields, submit } = useSubmit(async () => {
    setNotice(null);
    const body = { amount: amount.trim() === "" ? Number.NaN : Number(amount), ...(description.trim() ? { description: description.trim() } : {}) };
    const txn = await must(api.POST("/v1/admin/accounts/{id}/credits", { params: { path: { id: accountId } }, body }));
    setNotice(m("granted", { n: formatNumber(txn.amount, lang), balance: formatNumber(txn.balance_after, lang) }));
    setAmount("");
    setDescription("");
    onGranted();
  }, m("network"), ["amount", "description"]);
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="grant-heading">
      <h2 id="grant-heading">{m("grant")}</h2>
      <p class="hint">{m("grantIntro")}</p>
      <TextField label={m("amount")} type="number" step={1} required value={amount} onValue={setAmount} error={fieldError(fields, "amount")} />
      <TextField label={m("description")} maxLength={500} value={description} onValue={setDescription} error={fieldError(fields, "description")} />
      {notice && <Alert tone="success">{notice}</Alert>}
      {error && <Alert tone="error">{error}</Alert>}
      <div class="row">
        <Button type="submit" variant="primary" busy={busy}>
          {m("grant")}
        </Button>
      </div>
    </form>
  );
}

export function LoginLink({ accountId }: { accountId: string }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const make = async () => {
    setBusy(true);
    setError(null);
    try {
      setLink(await must(api.POST("/v1/admin/accounts/{id}/login_links", { params: { path: { id: accountId } }, body: {} })));
    } catch (e) {
      setError(messageOf(e, m("network")));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="card form">
      <h2>{m("loginLink")}</h2>
      <p class="hint">{m("loginLinkIntro")}</p>
      {link && <CopyField label={m("loginLinkUrl")} value={link.url} hint={m("expires", { time: formatDate(link.expires_at, lang) })} />}
      {error && <Alert tone="error">{error}</Alert>}
      <div class="row">
        <Button onClick={make} busy={busy}>
          {m("loginLink")}
        </Button>
      </div>
    </div>
  );
}
