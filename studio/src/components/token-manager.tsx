// The API token manager the Developers page and the operator's account page share: a table of the live tokens (name,
// hint, created, last used, and the id for operators) with `Revoke` behind a confirmation, and `Create token` whose
// secret is shown once with a copy button. The pages say only which routes it calls and their own words around it.
import { useState } from "preact/hooks";
import { fieldError } from "../api";
import { messageOf } from "../call";
import { useFocusOnMessage } from "../focus";
import { useLoad } from "../hooks";
import { formatDate, useLang, useT } from "../i18n";
import { useTokenMessages } from "../i18n/tokens";
import { Alert } from "./alert";
import { Button } from "./button";
import { ConfirmButton } from "./confirm-button";
import { CopyField } from "./copy-field";
import { Empty } from "./empty";
import { TextField } from "./field";
import { Loading } from "./spinner";
import { Table, type Column } from "./table";
import { useSubmit } from "./use-submit";

export type ListedToken = { id: string; name: string; hint: string; created_at: string; last_used_at: string | null };
/** A token just made, with its secret: shown until it is hidden or the page is left. */
export type MadeToken = { id: string; name: string; token: string };

type Props = {
  load(): Promise<{ data: ListedToken[] }>;
  /** What `load` depends on (the account's id on the operator's page). */
  deps?: unknown[];
  create(name: string): Promise<{ id: string; token: string }>;
  revoke(id: string): Promise<unknown>;
  /** The page's own words: the empty table, the warning beside a new secret, that secret's label. */
  empty: string;
  warning: string;
  secretLabel(made: MadeToken): string;
  nameHint?: string;
  /** Operators see token ids (to match logs and the API); account owners do not need them. */
  showIds?: boolean;
  /** The token this Studio session was opened with: marked in the table, and its revoke dialog says it signs you out. */
  currentTokenId?: string | null;
  primary?: boolean;
};

function CreateToken({ create, nameHint, primary, onCreated }: Pick<Props, "create" | "nameHint" | "primary"> & { onCreated(made: MadeToken): void }) {
  const m = useTokenMessages();
  const t = useT();
  const [name, setName] = useState("");
  const form = useSubmit(async () => {
    const made = await create(name.trim());
    onCreated({ id: made.id, name: name.trim(), token: made.token });
    setName("");
  }, t("common.network"), ["name"]);
  return (
    <form class="inline-form" onSubmit={form.submit}>
      <TextField label={m("tokenName")} hint={nameHint} maxLength={100} value={name} onValue={setName} error={fieldError(form.fields, "name")} />
      <Button type="submit" variant={primary ? "primary" : "secondary"} busy={form.busy}>
        {m("createToken")}
      </Button>
      {form.error && <Alert tone="error">{form.error}</Alert>}
    </form>
  );
}

function useColumns(showIds: boolean, revoke: (t: ListedToken) => Promise<void>, currentTokenId?: string | null): Column<ListedToken>[] {
  const m = useTokenMessages();
  const t = useT();
  const { lang } = useLang();
  const label = (token: ListedToken) => token.name || m("unnamed");
  const when = (iso: string | null) => <span class="nowrap">{iso ? formatDate(iso, lang) : m("never")}</span>;
  const columns: Column<ListedToken>[] = [
    {
      key: "name",
      label: m("name"),
      render: (token) => (token.id === currentTokenId ? <>{label(token)} <span class="badge badge-neutral">{m("yours")}</span></> : label(token)),
    },
    { key: "hint", label: m("token"), render: (token) => <code class="nowrap">{token.hint}</code> },
    { key: "created", label: m("created"), render: (token) => when(token.created_at) },
    { key: "used", label: m("lastUsed"), render: (token) => when(token.last_used_at) },
  ];
  if (showIds) columns.push({ key: "id", label: m("id"), render: (token) => <code class="nowrap">{token.id}</code> });
  columns.push({
    key: "actions",
    label: m("actions"),
    render: (token) => (
      <ConfirmButton
        label={m("revoke")}
        ariaLabel={m("revokeLabel", { name: label(token), hint: token.hint })}
        title={m("revokeTitle", { name: label(token) })}
        onConfirm={() => revoke(token)}
        describe={(e) => messageOf(e, t("common.network"))}
      >
        <p>{m("revokeText", { name: label(token), hint: token.hint })}</p>
        {token.id === currentTokenId && <p><strong>{m("ownToken")}</strong></p>}
      </ConfirmButton>
    ),
  });
  return columns;
}

export function TokenManager({ load, deps = [], create, revoke, empty, warning, secretLabel, nameHint, showIds = false, primary = false, currentTokenId }: Props) {
  const m = useTokenMessages();
  const t = useT();
  const tokens = useLoad(load, deps);
  const [made, setMade] = useState<MadeToken | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const noticeRef = useFocusOnMessage<HTMLDivElement>(notice);
  const columns = useColumns(showIds, async (token) => {
    await revoke(token.id);
    setNotice(m("revoked", { name: token.name || m("unnamed") }));
    await tokens.reload();
  }, currentTokenId);
  const created = (token: MadeToken) => {
    setMade(token);
    setNotice(null);
    void tokens.reload();
  };
  return (
    <>
      <CreateToken create={create} nameHint={nameHint} primary={primary} onCreated={created} />
      {made && (
        <div class="once">
          <Alert tone="warning" focusKey={made}>
            <p>{warning}</p>
            <CopyField label={secretLabel(made)} value={made.token} />
            <Button onClick={() => setMade(null)}>{m("hideToken")}</Button>
          </Alert>
        </div>
      )}
      <div ref={noticeRef} tabIndex={-1}>
        {notice && <Alert tone="success">{notice}</Alert>}
      </div>
      {tokens.error ? (
        <Alert tone="error">
          <p>{tokens.error}</p>
          <Button onClick={tokens.reload}>{t("common.retry")}</Button>
        </Alert>
      ) : !tokens.data ? (
        <Loading />
      ) : tokens.data.data.length === 0 ? (
        <Empty>{empty}</Empty>
      ) : (
        <Table caption={m("tokens")} columns={columns} rows={tokens.data.data} rowKey={(token) => token.id} stackOnPhone />
      )}
    </>
  );
}
