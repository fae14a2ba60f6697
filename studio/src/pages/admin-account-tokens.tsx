// The operator's view of one account's API tokens: the shared token manager (a table of the live ones with their ids
// and `Revoke`, `Create token` whose secret is shown once) over the admin routes.
import { api } from "../api";
import { must } from "../call";
import { TokenManager } from "../components/token-manager";
import { useAdminMessages } from "../i18n/admin";

export function AccountTokens({ accountId }: { accountId: string }) {
  const m = useAdminMessages();
  const path = { params: { path: { id: accountId } } };
  return (
    <section class="card form account-tokens">
      <h2>{m("tokens")}</h2>
      <p class="hint">{m("tokensIntro")}</p>
      <TokenManager
        load={() => must(api.GET("/v1/admin/accounts/{id}/tokens", path))}
        deps={[accountId]}
        create={(name) => must(api.POST("/v1/admin/accounts/{id}/tokens", { ...path, body: name ? { name } : {} }))}
        revoke={(id) => must(api.DELETE("/v1/admin/tokens/{id}", { params: { path: { id } } }))}
        empty={m("noTokens")}
        warning={m("tokenWarning")}
        secretLabel={(made) => m("newToken", { id: made.id })}
        showIds
      />
    </section>
  );
}
