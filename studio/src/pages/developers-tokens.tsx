// The Developers page's API tokens: the shared token manager (the account's live tokens with when they were made and
// last used, `Revoke`, `Create token` whose secret is shown once) over /v1/tokens.
import { api } from "../api";
import { must } from "../call";
import { TokenManager } from "../components/token-manager";
import { useDevelopersMessages } from "../i18n/developers";
import { useSession } from "../session";

export function TokensSection() {
  const m = useDevelopersMessages();
  const { session } = useSession();
  return (
    <section class="section" aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">{m("tokens")}</h2>
      <p class="hint">{m("tokensIntro")}</p>
      <TokenManager
        load={() => must(api.GET("/v1/tokens"))}
        create={(name) => must(api.POST("/v1/tokens", { body: name ? { name } : {} }))}
        revoke={(id) => must(api.DELETE("/v1/tokens/{id}", { params: { path: { id } } }))}
        empty={m("noTokens")}
        warning={m("newTokenWarning")}
        secretLabel={(made) => (made.name ? `${m("newToken")}: ${made.name}` : m("newToken"))}
        nameHint={m("tokenNameHint")}
        currentTokenId={session?.token_id}
        primary
      />
    </section>
  );
}
