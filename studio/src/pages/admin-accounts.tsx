// The operator's Accounts page (issue #22 point 7): every account (name, credits, plan, language) linking to its page,
// and `Create account` (name, credits, language, premium) that shows the account's first token once.
import { useState } from "preact/hooks";
import { api, fieldError } from "../api";
import { must } from "../call";
import { Alert } from "../components/alert";
import { Button, LinkButton } from "../components/button";
import { CopyField } from "../components/copy-field";
import { Empty } from "../components/empty";
import { TextField } from "../components/field";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { Table, type Column } from "../components/table";
import { useSubmit } from "../components/use-submit";
import { useLoad } from "../hooks";
import { formatDate, formatNumber, useLang } from "../i18n";
import { useAdminMessages } from "../i18n/admin";
import { ForKind } from "./for-kind";
import { ConfirmTopUp } from "./admin-top-up";
import "../console.css";

type Account = Awaited<ReturnType<typeof listAccounts>>["data"][number];
type Created = { account: Account; token: string; token_id: string };

function listAccounts() {
  return must(api.GET("/v1/admin/accounts"));
}

function CreateAccount({ onCreated }: { onCreated(created: Created): void }) {
  const m = useAdminMessages();
  const [name, setName] = useState("");
  const [credits, setCredits] = useState("0");
  const [language, setLanguage] = useState("en");
  const [premium, setPremium] = useState(false);
  const { busy, error, fields, submit } = useSubmit(async () => {
    const amount = credits.trim() === "" ? 0 : Number(credits);
    const body = { name: name.trim() || undefined, credits: amount, language: language.trim() || undefined, is_premium: premium };
    onCreated(await must(api.POST("/v1/admin/accounts", { body })));
    setName("");
    setCredits("0");
    setPremium(false);
  }, m("network"), ["name", "credits", "language"]);
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="create-account-heading">
      <h2 id="create-account-heading">{m("createAccount")}</h2>
      <TextField label={m("name")} maxLength={200} value={name} onValue={setName} error={fieldError(fields, "name")} />
      <TextField label={m("credits")} type="number" min={0} step={1} value={credits} onValue={setCredits} error={fieldError(fields, "credits")} />
      <TextField label={m("language")} hint={m("languageHint")} maxLength={35} value={language} onValue={setLanguage} error={fieldError(fields, "language")} />
      <label class="check">
        <input type="checkbox" checked={premium} onChange={(e) => setPremium(e.currentTarget.checked)} />
        {m("premiumLabel")}
      </label>
      {error && <Alert tone="error">{error}</Alert>}
      <div class="row">
        <Button type="submit" variant="primary" busy={busy}>
          {m("createAccount")}
        </Button>
      </div>
    </form>
  );
}

function AdminAccountsContent(_props: { id?: string }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const accounts = useLoad(listAccounts);
  const [created, setCreated] = useState<Created | null>(null);
  const [search, setSearch] = useState("");
  const needle = search.trim().toLowerCase();
  const shown = (accounts.data?.data ?? []).filter((a) => !needle || a.name.toLowerCase().includes(needle) || a.id.toLowerCase().includes(needle));
  const columns: Column<Account>[] = [
    { key: "name", label: m("name"), render: (a) => <a href={`/admin/accounts/${a.id}`}>{a.name || a.id}</a> },
    { key: "id", label: m("id"), render: (a) => <code class="nowrap">{a.id}</code> },
    { key: "credits", label: m("credits"), numeric: true, render: (a) => formatNumber(a.credits, lang) },
    { key: "premium", label: m("premium"), render: (a) => (a.is_premium ? m("yes") : m("no")) },
    { key: "language", label: m("language"), render: (a) => a.language },
    { key: "created", label: m("created"), render: (a) => <span class="nowrap">{formatDate(a.created_at, lang)}</span> },
  ];
  const made = (c: Created) => {
    setCreated(c);
    void accounts.reload();
  };
  return (
    <Page title={m("accounts")}>
      <p>{m("accountsIntro")}</p>
      {created && (
        <Alert tone="success">
          <p>{m("accountCreated", { name: created.account.name || created.account.id })}</p>
          <p>{m("tokenWarning")}</p>
          <CopyField label={m("firstToken")} value={created.token} />
          <LinkButton href={`/admin/accounts/${created.account.id}`}>{m("openAccount", { name: created.account.name || created.account.id })}</LinkButton>
        </Alert>
      )}
      <section class="section" aria-label={m("accounts")}>
        {accounts.error ? (
          <Alert tone="error">{accounts.error}</Alert>
        ) : !accounts.data ? (
          <Loading />
        ) : accounts.data.data.length === 0 ? (
          <Empty>{m("noAccounts")}</Empty>
        ) : (
          <>
            <div class="filters">
              <TextField label={m("search")} type="search" hint={m("searchHint")} value={search} onValue={setSearch} />
            </div>
            {shown.length === 0 ? <Empty>{m("noMatch")}</Empty> : <Table caption={m("accounts")} columns={columns} rows={shown} rowKey={(a) => a.id} />}
          </>
        )}
      </section>
      <section class="section account-grid">
        <CreateAccount onCreated={made} />
        <ConfirmTopUp onConfirmed={accounts.reload} />
      </section>
    </Page>
  );
}

export function AdminAccountsPage(_props: { id?: string }) {
  return (
    <ForKind kind="admin">
      <AdminAccountsContent />
    </ForKind>
  );
}
