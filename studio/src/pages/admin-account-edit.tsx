// The operator's form for changing one account's name, language and premium flag (PATCH /v1/admin/accounts/:id).
import { useState } from "preact/hooks";
import { api, fieldError } from "../api";
import { must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { TextField } from "../components/field";
import { useSubmit } from "../components/use-submit";
import { useAdminMessages } from "../i18n/admin";

type Account = { id: string; name: string; language: string; is_premium: boolean };

export function EditAccount({ account, onSaved }: { account: Account; onSaved(): void }) {
  const m = useAdminMessages();
  const [name, setName] = useState(account.name);
  const [language, setLanguage] = useState(account.language);
  const [premium, setPremium] = useState(account.is_premium);
  const [notice, setNotice] = useState<string | null>(null);
  const { busy, error, fields, submit: save } = useSubmit(async () => {
    setNotice(null);
    const body = { name: name.trim(), language: language.trim(), is_premium: premium };
    await must(api.PATCH("/v1/admin/accounts/{id}", { params: { path: { id: account.id } }, body }));
    setNotice(m("saved"));
    onSaved();
  }, m("network"), ["name", "language"]);
  return (
    <form class="card form" onSubmit={save} aria-labelledby="edit-account-heading">
      <h2 id="edit-account-heading">{m("edit")}</h2>
      <TextField label={m("name")} maxLength={200} value={name} onValue={setName} error={fieldError(fields, "name")} />
      <TextField label={m("language")} hint={m("languageHint")} maxLength={35} value={language} onValue={setLanguage} error={fieldError(fields, "language")} />
      <label class="check">
        <input type="checkbox" checked={premium} onChange={(e) => setPremium(e.currentTarget.checked)} />
        {m("premiumLabel")}
      </label>
      {notice && <Alert tone="success">{notice}</Alert>}
      {error && <Alert tone="error">{error}</Alert>}
      <div class="row">
        <Button type="submit" busy={busy}>
          {m("save")}
        </Button>
      </div>
    </form>
  );
}
