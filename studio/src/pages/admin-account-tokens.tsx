// The operator's view of one account's API tokens: a table of the live ones (name, hint, created, id) with `Revoke`
// behind a confirmation, and `Create token` whose secret is shown once with a copy button.
import { useState } from "preact/hooks";
import { api } from "../api";
import { formMessageOf, messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { ConfirmButton } from "../components/confirm-button";
import { CopyField } from "../components/copy-field";
import { Empty } from "../components/empty";
import { TextField } from "../components/field";
import { Loading } from "../components/spinner";
import { Table, type Column } from "../components/table";
import { useFocusOnMessage } from "../focus";
import { useLoad } from "../hooks";
import { formatDate, useLang } from "../i18n";
import { useAdminMessages } from "../i18n/admin";

type Token = Awaited<ReturnType<typeof listTokens>>["data"][number];

function listTokens(accountId: string) {
  return must(api.GET("/v1/admin/accounts/{id}/tokens", { params: { path: { id: accountId } } }));
}

function CreateToken({ accountId, onCreated }: { accountId: string; onCreated(): void }) {
  const m = useAdminMessages();
  const [name, setName] = useState("");
  const [made, setMade] = useState<{ id: string; token: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = name.trim() ? { name: name.trim() } : {};
      setMade(await must(api.POST("/v1/admin/accounts/{id}/tokens", { params: { path: { id: accountId } }, body })));
      setName("");
      onCreated();
    } catch (err) {
      setError(formMessageOf(err, m("network")));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form class="inline-form" onSubmit={create}>
        <TextField label={m("tokenName")} maxLength={100} value={name} onValue={setName} />
        <Button type="submit" busy={busy}>
          {m("createToken")}
        </Button>
      </form>
      {error && <Alert tone="error">{error}</Alert>}
      {made && (
        <Alert tone="warning">
          <p>{m("tokenWarning")}</p>
          <CopyField label={m("newToken", { id: made.id })} value={made.token} />
          <Button onClick={() => setMade(null)}>{m("hideToken")}</Button>
        </Alert>
      )}
    </>
  );
}

export function AccountTokens({ accountId }: { accountId: string }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const tokens = useLoad(() => listTokens(accountId), [accountId]);
  const [notice, setNotice] = useState<string | null>(null);
  const noticeRef = useFocusOnMessage<HTMLDivElement>(notice);
  const label = (t: Token) => t.name || m("unnamed");
  const revoke = async (t: Token) => {
    await must(api.DELETE("/v1/admin/tokens/{id}", { params: { path: { id: t.id } } }));
    setNotice(m("revoked", { name: label(t) }));
    await tokens.reload();
  };
  const columns: Column<Token>[] = [
    { key: "name", label: m("name"), render: (t) => label(t) },
    { key: "hint", label: m("token"), render: (t) => <code class="nowrap">{t.hint}</code> },
    { key: "created", label: m("created"), render: (t) => <span class="nowrap">{formatDate(t.created_at, lang)}</span> },
    { key: "id", label: m("id"), render: (t) => <code class="nowrap">{t.id}</code> },
    {
      key: "actions",
      label: m("actions"),
      render: (t) => (
        <ConfirmButton
          label={m("revoke")}
          ariaLabel={m("revokeLabel", { name: label(t), hint: t.hint })}
          title={m("revokeTitle", { name: label(t) })}
          onConfirm={() => revoke(t)}
          describe={(e) => messageOf(e, m("network"))}
        >
          <p>{m("revokeText", { name: label(t), hint: t.hint })}</p>
        </ConfirmButton>
      ),
    },
  ];
  return (
    <section class="card form account-tokens">
      <h2>{m("tokens")}</h2>
      <p class="hint">{m("tokensIntro")}</p>
      <CreateToken accountId={accountId} onCreated={() => (setNotice(null), void tokens.reload())} />
      <div ref={noticeRef} tabIndex={-1}>
        {notice && <Alert tone="success">{notice}</Alert>}
      </div>
      {tokens.error ? (
        <Alert tone="error">
          <p>{tokens.error}</p>
          <Button onClick={tokens.reload}>{m("retry")}</Button>
        </Alert>
      ) : !tokens.data ? (
        <Loading />
      ) : tokens.data.data.length === 0 ? (
        <Empty>{m("noTokens")}</Empty>
      ) : (
        <Table caption={m("tokens")} columns={columns} rows={tokens.data.data} rowKey={(t) => t.id} />
      )}
    </section>
  );
}
