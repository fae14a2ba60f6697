// The Developers page's API tokens: the account's live tokens (name, hint, when made and last used), a form that
// creates one and shows it once with a copy button, and Revoke behind a confirmation.
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
import { useLoad } from "../hooks";
import { formatDate, useLang } from "../i18n";
import { useDevelopersMessages } from "../i18n/developers";
import { useFocusOnMessage } from "../focus";

type Token = Awaited<ReturnType<typeof listTokens>>["data"][number];

function listTokens() {
  return must(api.GET("/v1/tokens"));
}

/** A token just made: its secret, shown until the page is left or it is dismissed. */
function NewToken({ token, onDone }: { token: { name: string; token: string }; onDone(): void }) {
  const m = useDevelopersMessages();
  return (
    <div class="once">
      <Alert tone="warning">
        <p>{m("newTokenWarning")}</p>
        <CopyField label={token.name ? `${m("newToken")}: ${token.name}` : m("newToken")} value={token.token} />
        <Button onClick={onDone}>{m("hideSecret")}</Button>
      </Alert>
    </div>
  );
}

function CreateToken({ onCreated }: { onCreated(token: { name: string; token: string }): void }) {
  const m = useDevelopersMessages();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const made = await must(api.POST("/v1/tokens", { body: name.trim() ? { name: name.trim() } : {} }));
      setName("");
      onCreated(made);
    } catch (err) {
      setError(formMessageOf(err, m("network")));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <TextField label={m("tokenName")} hint={m("tokenNameHint")} maxLength={100} value={name} onValue={setName} />
      <Button type="submit" variant="primary" busy={busy}>
        {m("createToken")}
      </Button>
      {error && <Alert tone="error">{error}</Alert>}
    </form>
  );
}

export function TokensSection() {
  const m = useDevelopersMessages();
  const { lang } = useLang();
  const tokens = useLoad(listTokens);
  const [made, setMade] = useState<{ name: string; token: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const noticeRef = useFocusOnMessage<HTMLDivElement>(notice);
  const label = (t: Token) => t.name || m("unnamed");
  const revoke = async (t: Token) => {
    await must(api.DELETE("/v1/tokens/{id}", { params: { path: { id: t.id } } }));
    setNotice(m("revoked", { name: label(t) }));
    await tokens.reload();
  };
  const columns: Column<Token>[] = [
    { key: "name", label: m("name"), render: (t) => label(t) },
    { key: "hint", label: m("token"), render: (t) => <code class="nowrap">{t.hint}</code> },
    { key: "created", label: m("created"), render: (t) => <span class="nowrap">{formatDate(t.created_at, lang)}</span> },
    { key: "used", label: m("lastUsed"), render: (t) => <span class="nowrap">{t.last_used_at ? formatDate(t.last_used_at, lang) : m("never")}</span> },
    {
      key: "actions",
      label: m("actions"),
      render: (t) => (
        <ConfirmButton
          label={m("revoke")}
          ariaLabel={m("revokeLabel", { name: label(t), hint: t.hint })}
          title={m("revokeTitle")}
          onConfirm={() => revoke(t)}
          describe={(e) => messageOf(e, m("network"))}
        >
          <p>{m("revokeText", { name: label(t), hint: t.hint })}</p>
        </ConfirmButton>
      ),
    },
  ];
  return (
    <section class="section" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{m("tokens")}</h2>
      <p class="hint">{m("tokensIntro")}</p>
      <CreateToken
        onCreated={(t) => {
          setMade(t);
          setNotice(null);
          void tokens.reload();
        }}
      />
      {made && <NewToken token={made} onDone={() => setMade(null)} />}
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
