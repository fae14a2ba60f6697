// The Balance page (issue #22 point 5): the account's credits and plan, a top-up through the payment page with the
// status of the last one on return, and the transactions, newest first, a page at a time.
import { api } from "../api";
import { must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { PagedTable } from "../components/paged-table";
import type { Column } from "../components/table";
import { useLoad } from "../hooks";
import { formatDate, formatNumber, useLang } from "../i18n";
import { useBalanceMessages, type BalanceKey } from "../i18n/balance";
import { descriptionParts, videoLabels, type TemplateNamer } from "../i18n/transactions";
import { useCursorList, type CursorList } from "../paging";
import { TopUpForm, TopUpStatus } from "./balance-top-up";
import { ForKind } from "./for-kind";
import { loadTemplates, templateWords } from "./videos-data";
import "../console.css";

type Transaction = Awaited<ReturnType<typeof transactionsAfter>>["data"][number];

function transactionsAfter(startingAfter: string | undefined) {
  return must(api.GET("/v1/balance/transactions", { params: { query: { limit: 20, starting_after: startingAfter } } }));
}

function Summary({ credits, premium }: { credits: number; premium: boolean }) {
  const m = useBalanceMessages();
  const { lang } = useLang();
  return (
    <div class="stats">
      <div class="card stat">
        <span class="stat-label" id="credits-label">
          {m("credits")}
        </span>
        <span class="stat-value" aria-describedby="credits-label" data-testid="credits">
          {formatNumber(credits, lang)}
        </span>
      </div>
      <div class="card stat">
        <span class="stat-label">{m("premium")}</span>
        <span class="stat-value">{premium ? m("premiumYes") : m("premiumNo")}</span>
      </div>
    </div>
  );
}

/** A transaction's description: its words, and a link to the video it is about (named by product and template). */
function Description({ text, labels, date, templateName }: { text: string; labels: Map<string, string>; date: string; templateName: TemplateNamer }) {
  const { lang } = useLang();
  return (
    // One element: on a phone each cell is a grid of its label and its content, where loose parts would each take a row.
    <span>
      {descriptionParts(text, lang, labels, date, templateName).map((part, i) =>
        typeof part === "string" ? (
          part
        ) : (
          <a key={i} href={part.href}>
            {part.label}
            {part.hidden && <span class="visually-hidden">{part.hidden}</span>}
          </a>
        ),
      )}
    </span>
  );
}

function Transactions({ list }: { list: CursorList<Transaction> }) {
  const m = useBalanceMessages();
  const { lang } = useLang();
  // The server names a video's template in English; the interface says it in its own language.
  const templates = useLoad(() => loadTemplates().catch(() => []), []);
  const inLang = new Map((templates.data ?? []).map((tpl) => [tpl.name, templateWords(tpl, lang).name]));
  const templateName: TemplateNamer = (english) => inLang.get(english) ?? english;
  const labels = videoLabels(list.rows.map((r) => r.description ?? ""), templateName);
  const typeName = (type: string) => {
    const text = m(`type.${type}` as BalanceKey);
    return text === `type.${type}` ? type : text;
  };
  const columns: Column<Transaction>[] = [
    { key: "date", label: m("date"), render: (r) => <span class="nowrap">{formatDate(r.created_at, lang)}</span> },
    { key: "type", label: m("type"), render: (r) => typeName(r.type) },
    { key: "description", label: m("description"), render: (r) => <Description text={r.description ?? ""} labels={labels} date={formatDate(r.created_at, lang)} templateName={templateName} /> },
    {
      key: "amount",
      label: m("change"),
      numeric: true,
      render: (r) => <span class={r.amount >= 0 ? "amount-in" : "amount-out"}>{`${r.amount > 0 ? "+" : r.amount < 0 ? "−" : ""}${formatNumber(Math.abs(r.amount), lang)}`}</span>,
    },
    { key: "after", label: m("balanceAfter"), numeric: true, render: (r) => formatNumber(r.balance_after, lang) },
  ];
  return (
    <section class="section" aria-labelledby="transactions-heading">
      <h2 id="transactions-heading">{m("transactions")}</h2>
      {/* Shown once the template names are known (a request at most, usually made already), so none switches language. */}
      {templates.loading ? <Loading /> : <PagedTable list={list} caption={m("transactions")} columns={columns} empty={m("noTransactions")} stackOnPhone />}
    </section>
  );
}

function BalanceContent(_props: { id?: string }) {
  const m = useBalanceMessages();
  const balance = useLoad(() => must(api.GET("/v1/balance")));
  const list = useCursorList(transactionsAfter);
  const paid = () => {
    void balance.reload();
    void list.reload();
  };
  return (
    <Page title={m("title")}>
      {balance.error ? (
        <Alert tone="error">
          <p>{balance.error}</p>
          <Button onClick={balance.reload}>{m("retry")}</Button>
        </Alert>
      ) : balance.data ? (
        <Summary credits={balance.data.credits} premium={balance.data.is_premium} />
      ) : (
        <Loading />
      )}
      <TopUpStatus onPaid={paid} />
      <TopUpForm />
      <Transactions list={list} />
    </Page>
  );
}

export function BalancePage(_props: { id?: string }) {
  return (
    <ForKind kind="account">
      <BalanceContent />
    </ForKind>
  );
}
