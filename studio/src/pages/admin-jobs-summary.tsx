// The Jobs page's summary: how many jobs are queued, running and dead, by kind, counted from GET /v1/admin/jobs (one
// call per status at its largest page), each count a link to the list filtered to that kind and status.
import { api } from "../api";
import { must } from "../call";
import { Alert } from "../components/alert";
import { Table, type Column } from "../components/table";
import { useLoad } from "../hooks";
import { formatNumber, useLang, useT, type MessageKey } from "../i18n";
import { useAdminMessages } from "../i18n/admin";

const WATCHED = ["queued", "running", "dead"] as const;
type Watched = (typeof WATCHED)[number];
/** The API's largest page: a status with this many jobs is shown as "500+" (its kinds' counts are then lower bounds). */
const COUNT_LIMIT = 500;

type Counts = Record<Watched, number>;
type Row = { kind: string; counts: Counts };
export type JobSummary = { rows: Row[]; total: Counts; capped: Record<Watched, boolean> };

const zero = (): Counts => ({ queued: 0, running: 0, dead: 0 });

async function loadSummary(): Promise<JobSummary> {
  const pages = await Promise.all(WATCHED.map((status) => must(api.GET("/v1/admin/jobs", { params: { query: { status, limit: COUNT_LIMIT } } }))));
  const byKind = new Map<string, Counts>();
  const total = zero();
  WATCHED.forEach((status, i) => {
    for (const job of pages[i]!.data) {
      const counts = byKind.get(job.kind) ?? zero();
      counts[status] += 1;
      byKind.set(job.kind, counts);
      total[status] += 1;
    }
  });
  const rows = [...byKind].map(([kind, counts]) => ({ kind, counts })).sort((a, b) => a.kind.localeCompare(b.kind));
  const capped = { queued: pages[0]!.data.length >= COUNT_LIMIT, running: pages[1]!.data.length >= COUNT_LIMIT, dead: pages[2]!.data.length >= COUNT_LIMIT };
  return { rows, total, capped };
}

/** A kind name that may break after its dots on a phone ("idempotency.<wbr>purge"), never inside a word. */
function KindName({ kind }: { kind: string }) {
  const parts = kind.split(".");
  return <code class="kind-name">{parts.map((p, i) => (i === 0 ? p : [".", <wbr key={i} />, p]))}</code>;
}

/** `stamp` changes whenever the job list below was loaded again, so the counts follow it (Refresh, Retry job, polling). */
export function JobsSummary({ stamp }: { stamp: unknown }) {
  const m = useAdminMessages();
  const t = useT();
  const { lang } = useLang();
  const summary = useLoad(loadSummary, [stamp]);
  if (summary.error) return <Alert tone="error">{summary.error}</Alert>;
  const s = summary.data;
  if (!s) return null;
  const all: Row = { kind: "", counts: s.total };
  const cell = (row: Row, status: Watched) => {
    const n = row.counts[status];
    const text = row.kind === "" && s.capped[status] ? m("jobsMore", { n: COUNT_LIMIT }) : formatNumber(n, lang);
    if (n === 0) return <span class="muted">{text}</span>;
    const qs = new URLSearchParams({ status, ...(row.kind ? { kind: row.kind } : {}) });
    const kindName = row.kind || m("allKinds");
    return (
      <a href={`/admin/jobs?${qs}`} aria-label={m("summaryLink", { n: text, status: t(`status.${status}` as MessageKey).toLocaleLowerCase(lang), kind: kindName })}>
        {text}
      </a>
    );
  };
  const columns: Column<Row>[] = [
    { key: "kind", label: m("kind"), render: (r) => (r.kind ? <KindName kind={r.kind} /> : <strong>{m("allKinds")}</strong>) },
    ...WATCHED.map((status) => ({ key: status, label: t(`status.${status}` as MessageKey), numeric: true, render: (r: Row) => cell(r, status) })),
  ];
  return (
    <section class="section jobs-summary">
      <h2>{m("summary")}</h2>
      {s.rows.length === 0 ? (
        <p class="hint">{m("summaryNone")}</p>
      ) : (
        <Table caption={m("summary")} columns={columns} rows={[...s.rows, all]} rowKey={(r) => r.kind || "*"} />
      )}
    </section>
  );
}
