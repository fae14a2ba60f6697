// The operator's page of one account (issue #22 point 7): its details, and grant credits, a login link and its
// API tokens (admin-account-actions.tsx, admin-account-tokens.tsx).
import { BackIcon } from "../components/icons";
import { api } from "../api";
import { ApiError, must } from "../call";
import { Alert } from "../components/alert";
import { Page } from "../components/page";
import { Loading } from "../components/spinner";
import { useLoad } from "../hooks";
import { formatDate, formatNumber, useLang } from "../i18n";
import { useAdminMessages } from "../i18n/admin";
import { GrantCredits, LoginLink } from "./admin-account-actions";
import { AccountTokens } from "./admin-account-tokens";
import { EditAccount } from "./admin-account-edit";
import { ForKind } from "./for-kind";
import "../console.css";

type Account = Awaited<ReturnType<typeof loadAccount>>;

function loadAccount(id: string) {
  return must(api.GET("/v1/admin/accounts/{id}", { params: { path: { id } } }));
}

function Details({ account }: { account: Account }) {
  const m = useAdminMessages();
  const { lang } = useLang();
  return (
    <div class="stats">
      <div class="card stat">
        <span class="stat-label">{m("credits")}</span>
        <span class="stat-value" data-testid="account-credits">
          {formatNumber(account.credits, lang)}
        </span>
      </div>
      <div class="card">
        <dl class="dl">
          <dt>{m("id")}</dt>
          <dd>
            <code>{account.id}</code>
          </dd>
          <dt>{m("language")}</dt>
          <dd>{account.language}</dd>
          <dt>{m("premium")}</dt>
          <dd>{account.is_premium ? m("yes") : m("no")}</dd>
          <dt>{m("created")}</dt>
          <dd>{formatDate(account.created_at, lang)}</dd>
        </dl>
      </div>
    </div>
  );
}

function AdminAccountContent({ id = "" }: { id?: string }) {
  const m = useAdminMessages();
  const account = useLoad(async () => {
    try {
      return await loadAccount(id);
    } catch (e) {
      // An unknown id is a page of its own ("no such account"), not an error to retry.
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }, [id]);
  const back = (
    <a href="/admin/accounts">
      <BackIcon size={16} />
      {m("back")}
    </a>
  );
  if (account.loading && !account.data) return <Loading />;
  if (account.error) return <Page title={m("account")} back={back}><Alert tone="error">{account.error}</Alert></Page>;
  if (!account.data) return <Page title={m("account")} back={back}><Alert tone="warning">{m("notFound")}</Alert></Page>;
  const a = account.data;
  return (
    <Page title={a.name || a.id} back={back}>
      <Details account={a} />
      <div class="account-grid">
        <div class="stack">
          <GrantCredits accountId={a.id} onGranted={account.reload} />
          <EditAccount account={a} onSaved={account.reload} />
        </div>
        <div class="stack">
          <LoginLink accountId={a.id} />
        </div>
      </div>
      <AccountTokens accountId={a.id} />
    </Page>
  );
}

export function AdminAccountPage(props: { id?: string }) {
  return (
    <ForKind kind="admin">
      <AdminAccountContent {...props} />
    </ForKind>
  );
}
