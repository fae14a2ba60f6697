// The operator's Health page (issue #22 point 7): liveness (/healthz), readiness with each check (/readyz, which says
// 503 with the same body when not ready) and the queued, running and dead jobs, refreshed every 10 seconds.
import { useState } from "preact/hooks";
import { api, send } from "../api";
import { messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button, LinkButton } from "../components/button";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { useLoad, usePoll } from "../hooks";
import { formatNumber, useLang, useT, type MessageKey } from "../i18n";
import { useAdminMessages, type AdminKey } from "../i18n/admin";
import { ForKind } from "./for-kind";
import "../console.css";

type Check = { ok: boolean; [detail: string]: unknown };
type Health = { alive: boolean; ready: { status: string; checks: Record<string, Check> } | null; jobs: Record<string, number>; at: Date };

const WATCHED = ["queued", "running", "dead"] as const;
const COUNT_LIMIT = 500;

async function loadHealth(): Promise<Health> {
  const [live, ready, ...counts] = await Promise.all([
    send("/healthz").then((r) => r.ok).catch(() => false),
    send("/readyz").then((r) => r.json() as Promise<Health["ready"]>),
    ...WATCHED.map((status) => must(api.GET("/v1/admin/jobs", { params: { query: { status, limit: COUNT_LIMIT } } })).then((p) => p.data.length)),
  ]);
  return { alive: live, ready, jobs: Object.fromEntries(WATCHED.map((s, i) => [s, counts[i]])), at: new Date() };
}

function detailText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function Checks({ checks }: { checks: Record<string, Check> }) {
  const m = useAdminMessages();
  return (
    <div class="checks">
      {Object.entries(checks).map(([name, check]) => {
        const details = Object.entries(check).filter(([key]) => key !== "ok");
        return (
          <div class="card check-card" key={name}>
            <h3>
              <span>{name}</span>
              <span class={`badge ${check.ok ? "badge-success" : "badge-danger"}`}>{check.ok ? m("checkOk") : m("checkFailed")}</span>
            </h3>
            {details.length > 0 && (
              <dl class="dl">
                {details.map(([key, value]) => [<dt key={`${key}-t`}>{key}</dt>, <dd key={`${key}-d`}>{detailText(value)}</dd>])}
              </dl>
            )}
          </div>
        );
      })}
    </div>
  );
}

function Summary({ health }: { health: Health }) {
  const m = useAdminMessages();
  const t = useT();
  const { lang } = useLang();
  const readyStatus = health.ready?.status ?? "not_ready";
  const readyText = m(`ready.${readyStatus}` as AdminKey);
  const count = (n: number) => (n >= COUNT_LIMIT ? m("jobsMore", { n: COUNT_LIMIT }) : formatNumber(n, lang));
  return (
    <div class="stats">
      <div class="card stat">
        <span class="stat-label">{m("live")}</span>
        <span class="stat-value">
          <span class={`badge ${health.alive ? "badge-success" : "badge-danger"}`}>{health.alive ? m("alive") : m("notAlive")}</span>
        </span>
      </div>
      <div class="card stat">
        <span class="stat-label">{m("ready")}</span>
        <span class="stat-value">
          <span class={`badge ${readyStatus === "ready" ? "badge-success" : "badge-danger"}`}>{readyText.startsWith("ready.") ? readyStatus : readyText}</span>
        </span>
      </div>
      {WATCHED.map((status) => (
        <a class="card stat stat-link" href={`/admin/jobs?status=${status}`} key={status}>
          <span class="stat-label">
            {m("jobsGlance")}: {t(`status.${status}` as MessageKey)}
          </span>
          <span class="stat-value">{count(health.jobs[status] ?? 0)}</span>
        </a>
      ))}
    </div>
  );
}

function AdminHomeContent(_props: { id?: string }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  const health = useLoad(loadHealth);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => health.reload().catch((e) => setError(messageOf(e, m("network"))));
  usePoll(true, refresh, 10_000);
  return (
    <Page
      title={m("health")}
      actions={
        <>
          <LinkButton href="/admin/jobs">{m("seeJobs")}</LinkButton>
          <Button onClick={refresh} busy={health.loading && health.data !== null}>
            {m("refresh")}
          </Button>
        </>
      }
    >
      <p>{m("healthIntro")}</p>
      {(health.error || error) && <Alert tone="error">{health.error ?? error}</Alert>}
      {!health.data ? (
        !health.error && <Loading />
      ) : (
        <>
          <Summary health={health.data} />
          <section class="section" aria-labelledby="checks-heading">
            <h2 id="checks-heading">{m("checks")}</h2>
            {health.data.ready && <Checks checks={health.data.ready.checks} />}
            <p class="hint">{m("updated", { time: new Intl.DateTimeFormat(lang, { timeStyle: "medium" }).format(health.data.at) })}</p>
          </section>
        </>
      )}
    </Page>
  );
}

export function AdminHomePage(_props: { id?: string }) {
  return (
    <ForKind kind="admin">
      <AdminHomeContent />
    </ForKind>
  );
}
