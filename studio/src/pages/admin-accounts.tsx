// The operator's Accounts page (issue #22 point 7): the accounts (name, credits, plan, language), a page at a time and
// searched by the server, each linking to its page, and `Create account` (name, credits, language, premium) that shows
// the account's first token once.
import { useEffect, useState } from "preact/hooks";
import { api, fieldError } from "../api";
import { must } from "../call";
import { Alert } from "../components/alert";
import { Button, LinkButton } from "../components/button";
import { CopyField } from "../components/copy-field";
import { TextField } from "../components/field";
import { Page } from "../components/page";
import { PagedTable } from "../components/paged-table";
import { type Column } from "../components/table";
import { useSubmit } from "../components/use-submit";
import { formatDate, formatNumber, useLang } from "../i18n";
import { useAdminMessages } from "../i18n/admin";
import { ForKind } from "./for-kind";
import { ConfirmTopUp } from "./admin-top-up";
import { useCursorList } from "../paging";
import "../console.css";

type Account = Awaited<ReturnType<typeof listAccounts>>["data"][number];
type Created = { account: Account; token: string; token_id: string };

function listAccounts(startingAfter?: string, q?: string) {
  return must(api.GET("/v1/admin/accounts", { params: { query: { starting_after: startingAfter, q: q || undefined } } }));
}

/** How long the search waits after the last key before asking the server. */
const SEARCH_DEBOUNCE_MS = 250;

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
  const [created, setCreated] = useState<Created | null>(null);
  const [search, setSearch] = useState("");
  // The server searches (the list is paged, so the page in hand is not all there is), a moment after the last key.
  const [q, setQ] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [search]);
  const accounts = useCursorList((after) => listAccounts(after, q), [q]);
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
        <div class="filters">
          <TextField label={m("search")} type="search" hint={m("searchHint")} value={search} onValue={setSearch} />
        </div>
        <PagedTable list={accounts} caption={m("accounts")} columns={columns} empty={q ? m("noMatch") : m("noAccounts")} />
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
