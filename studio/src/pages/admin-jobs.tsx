// The operator's Jobs page (issue #22 point 7): the job table filtered by status and kind (the URL keeps the filter,
// so the Health page links to the dead jobs), each job's attempts and last error, and `Retry job` on a dead one.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api } from "../api";
import { messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { Empty } from "../components/empty";
import { SelectField } from "../components/field";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { StatusBadge } from "../components/status-badge";
import { Table, type Column } from "../components/table";
import { useLoad, usePoll } from "../hooks";
import { formatDate, useLang, useT, type Lang, type MessageKey } from "../i18n";
import { useAdminMessages } from "../i18n/admin";
import { ForKind } from "./for-kind";
import { JobsSummary } from "./admin-jobs-summary";
import "../console.css";

type Job = Awaited<ReturnType<typeof listJobs>>["data"][number];
type Status = "queued" | "running" | "succeeded" | "failed" | "dead";

const STATUSES: Status[] = ["queued", "running", "succeeded", "failed", "dead"];
/** The job kinds vitrin registers (docs/api.md); a plugin's own kind still shows under All. */
const KINDS = ["dekupe", "video.render", "webhook.deliver", "topup.expire", "idempotency.purge", "video.retention"];
const LIMIT = 100;

function listJobs(status: Status | undefined, kind: string | undefined) {
  return must(api.GET("/v1/admin/jobs", { params: { query: { status, kind, limit: LIMIT } } }));
}

function Filters({ status, kind, onChange }: { status: string; kind: string; onChange(status: string, kind: string): void }) {
  const m = useAdminMessages();
  const t = useT();
  const statusName = (s: string) => {
    const text = t(`status.${s}` as MessageKey);
    return text.startsWith("status.") ? s : text;
  };
  return (
    <div class="filters">
      <SelectField
        label={m("status")}
        value={status}
        onValue={(s) => onChange(s, kind)}
        options={[{ value: "", label: m("all") }, ...STATUSES.map((s) => ({ value: s, label: statusName(s) }))]}
      />
      <SelectField
        label={m("kind")}
        value={kind}
        onValue={(k) => onChange(status, k)}
        options={[{ value: "", label: m("all") }, ...KINDS.map((k) => ({ value: k, label: k }))]}
      />
    </div>
  );
}

/** The table's columns. Kind and id share a cell, and so do the two times: eight columns did not fit 1280 px. */
function jobColumns(m: ReturnType<typeof useAdminMessages>, lang: Lang, busy: string | null, retry: (job: Job) => void): Column<Job>[] {
  return [
    {
      key: "job",
      label: m("job"),
      render: (j) => (
        <details>
          <summary>
            <code class="nowrap">{j.kind}</code>
            <code class="job-id">{j.id}</code>
          </summary>
          <pre class="payload">{JSON.stringify(j.payload, null, 2)}</pre>
        </details>
      ),
    },
    { key: "status", label: m("status"), render: (j) => <StatusBadge status={j.status} /> },
    { key: "attempts", label: m("attempts"), numeric: true, render: (j) => `${j.attempts}/${j.max_attempts}` },
    { key: "error", label: m("lastError"), render: (j) => (j.last_error ? <span class="error-text">{j.last_error}</span> : "") },
    {
      key: "when",
      label: m("when"),
      render: (j) => (
        <dl class="times">
          <dt>{m("created")}</dt>
          <dd>{formatDate(j.created_at, lang)}</dd>
          <dt>{m("runAt")}</dt>
          <dd>{formatDate(j.run_at, lang)}</dd>
        </dl>
      ),
    },
    {
      key: "actions",
      label: m("actions"),
      render: (j) =>
        j.status === "dead" ? (
          <Button busy={busy === j.id} aria-label={m("retryJobLabel", { id: j.id, kind: j.kind })} onClick={() => retry(j)}>
            {m("retryJob")}
          </Button>
        ) : null,
    },
  ];
}

function AdminJobsContent(_props: { id?: string }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const { query, route, path } = useLocation();
  const status = STATUSES.includes(query.status as Status) ? (query.status as Status) : undefined;
  const kind = query.kind || undefined;
  const jobs = useLoad(() => listJobs(status, kind), [status, kind]);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const rows = jobs.data?.data ?? [];
  usePoll(rows.some((j) => j.status === "queued" || j.status === "running"), jobs.reload, 5000);
  const filter = (s: string, k: string) => {
    const params = new URLSearchParams();
    if (s) params.set("status", s);
    if (k) params.set("kind", k);
    const qs = params.toString();
    setNotice(null);
    route(qs ? `${path}?${qs}` : path, true);
  };
  const retry = async (job: Job) => {
    setBusy(job.id);
    setNotice(null);
    try {
      await must(api.POST("/v1/admin/jobs/{id}/redrive", { params: { path: { id: job.id } }, body: {} }));
      setNotice({ tone: "success", text: m("retried", { id: job.id }) });
      await jobs.reload();
    } catch (e) {
      setNotice({ tone: "error", text: messageOf(e, m("network")) });
    } finally {
      setBusy(null);
    }
  };
  const columns = jobColumns(m, lang, busy, retry);
  return (
    <Page title={m("jobs")} actions={<Button onClick={jobs.reload} busy={jobs.loading && jobs.data !== null}>{m("refresh")}</Button>}>
      <p>{m("jobsIntro")}</p>
      <JobsSummary stamp={jobs.data} />
      <Filters status={status ?? ""} kind={kind ?? ""} onChange={filter} />
      {notice && <Alert tone={notice.tone}>{notice.text}</Alert>}
      {jobs.error ? (
        <Alert tone="error">{jobs.error}</Alert>
      ) : !jobs.data ? (
        <Loading />
      ) : rows.length === 0 ? (
        <Empty>{m("noJobs")}</Empty>
      ) : (
        <>
          <div class="jobs-table">
            <Table caption={m("jobs")} columns={columns} rows={rows} rowKey={(j) => j.id} />
          </div>
          {rows.length >= LIMIT && <p class="hint">{m("shown", { n: LIMIT })}</p>}
        </>
      )}
    </Page>
  );
}

export function AdminJobsPage(_props: { id?: string }) {
  return (
    <ForKind kind="admin">
      <AdminJobsContent />
    </ForKind>
  );
}
