// The operator's confirmation of a manual top-up (the default payment provider): the payer quotes the top-up id,
// the operator enters it here once the money arrived, and its credits are booked exactly once.
import { useState } from "preact/hooks";
import { api } from "../api";
import { formMessageOf, must } from "../call";
import { Alert } from "../components/alert";
import { ConfirmButton } from "../components/confirm-button";
import { TextField } from "../components/field";
import { formatNumber, useLang } from "../i18n";
import { useAdminMessages } from "../i18n/admin";

export function ConfirmTopUp({ onConfirmed }: { onConfirmed(): void }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const [id, setId] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const confirm = async () => {
    const topUp = await must(api.POST("/v1/admin/top-ups/{id}/complete", { params: { path: { id: id.trim() } }, body: {} }));
    setNotice(m("topUpConfirmed", { id: topUp.id, credits: formatNumber(topUp.credits, lang) }));
    setId("");
    onConfirmed();
  };
  return (
    <div class="card form">
      <h2>{m("confirmTopUp")}</h2>
      <p class="hint">{m("confirmTopUpIntro")}</p>
      <div class="inline-form">
        <TextField label={m("topUpId")} value={id} onValue={(v) => (setId(v), setNotice(null))} placeholder="top_…" spellcheck={false} />
        <ConfirmButton
          label={m("confirmTopUpButton")}
          variant="primary"
          title={m("confirmTopUpTitle", { id: id.trim() })}
          onConfirm={confirm}
          describe={(e) => formMessageOf(e, m("network"))}
        >
          <p>{m("confirmTopUpText")}</p>
        </ConfirmButton>
      </div>
      {notice && <Alert tone="success">{notice}</Alert>}
    </div>
  );
}
