// The Developers page's webhook deliveries: every message (event, receiver, status) a page at a time, its attempts
// (HTTP status, latency, error, next try) in a disclosure, and `Redeliver` to send it again with the same webhook-id.
import { useState } from "preact/hooks";
import { api } from "../api";
import { messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { StatusBadge } from "../components/status-badge";
import { PagedTable } from "../components/paged-table";
import type { Column } from "../components/table";
import { formatDate, useLang } from "../i18n";
import { useDevelopersMessages } from "../i18n/developers";
import { useCursorList } from "../paging";

type Message = Awaited<ReturnType<typeof messagesAfter>>["data"][number];
type Attempt = Message["attempts"][number];

function messagesAfter(startingAfter: string | undefined) {
  return must(api.GET("/v1/webhooks/deliveries", { params: { query: { limit: 20, starting_after: startingAfter } } }));
}

function Attempts({ message }: { message: Message }) {
  const m = useDevelopersMessages();
  const { lang } = useLang();
  const count = message.attempts.length;
  if (count === 0) return <span class="muted">{m("attemptCount", { n: 0 })}</span>;
  const result = (a: Attempt) =>
    [
      a.status_code !== null ? m("attemptHttp", { code: a.status_code, ms: a.latency_ms ?? 0 }) : null,
      a.error,
      a.next_attempt_at ? m("attemptNext", { time: formatDate(a.next_attempt_at, lang) }) : null,
    ]
      .filter(Boolean)
      .join(" · ");
  return (
    <details>
      <summary>{m("attemptCount", { n: count })}</summary>
      <ol class="attempts">
        {message.attempts.map((a) => (
          <li key={a.id}>{m("attemptLine", { n: a.attempt, result: result(a) || "…", time: formatDate(a.created_at, lang) })}</li>
        ))}
      </ol>
    </details>
  );
}

export function DeliveriesSection() {
  const m = useDevelopersMessages();
  const { lang } = useLang();
  const list = useCursorList(messagesAfter);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const redeliver = async (message: Message) => {
    setBusy(message.id);
    setNotice(null);
    try {
      await must(api.POST("/v1/webhooks/deliveries/{id}/redeliver", { params: { path: { id: message.id } }, body: {} }));
      setNotice({ tone: "success", text: m("redelivered", { id: message.id }) });
      await list.reload();
    } catch (e) {
      setNotice({ tone: "error", text: messageOf(e, m("network")) });
    } finally {
      setBusy(null);
    }
  };
  const columns: Column<Message>[] = [
    { key: "event", label: m("event"), render: (r) => <code class="nowrap">{r.event}</code> },
    { key: "url", label: m("url"), render: (r) => <span class="mono wide-cell">{r.url}</span> },
    { key: "status", label: m("status"), render: (r) => <StatusBadge status={r.status} /> },
    { key: "attempts", label: m("attempts"), render: (r) => <Attempts message={r} /> },
    { key: "created", label: m("created"), render: (r) => <span class="nowrap">{formatDate(r.created_at, lang)}</span> },
    {
      key: "actions",
      label: m("actions"),
      render: (r) => (
        <Button busy={busy === r.id} aria-label={m("redeliverLabel", { event: r.event, id: r.id })} onClick={() => redeliver(r)}>
          {m("redeliver")}
        </Button>
      ),
    },
  ];
  return (
    <section class="section" aria-labelledby="deliveries-heading">
      <div class="section-head">
        <h2 id="deliveries-heading">{m("deliveries")}</h2>
        <Button onClick={list.reload} busy={list.loading && list.rows.length > 0}>
          {m("refresh")}
        </Button>
      </div>
      <p class="hint">{m("deliveriesIntro")}</p>
      {notice && <Alert tone={notice.tone}>{notice.text}</Alert>}
      <PagedTable list={list} caption={m("deliveries")} columns={columns} empty={m("noDeliveries")} />
    </section>
  );
}
