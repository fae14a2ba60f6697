// The Developers page (issue #22 point 6): API tokens (create with a copy-once display, revoke), the webhook secret
// (reveal, rotate) and URL, webhook endpoints, and the deliveries with their attempts and `Redeliver`.
import { Page } from "../components/page";
import { useDevelopersMessages } from "../i18n/developers";
import { DeliveriesSection } from "./developers-deliveries";
import { EndpointsSection } from "./developers-endpoints";
import { TokensSection } from "./developers-tokens";
import { AccountUrlCard, SecretCard } from "./developers-webhooks";
import { ForKind } from "./for-kind";
import "../console.css";

function DevelopersContent(_props: { id?: string }) {
  const m = useDevelopersMessages();
  return (
    <Page title={m("title")}>
      <p>
        {m("intro")} <a href="/docs">{m("apiDocs")}</a>
      </p>
      <TokensSection />
      <section class="section" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">{m("webhooks")}</h2>
        <div class="stats">
          <SecretCard />
          <AccountUrlCard />
        </div>
      </section>
      <EndpointsSection />
      <DeliveriesSection />
    </Page>
  );
}

export function DevelopersPage(_props: { id?: string }) {
  return (
    <ForKind kind="account">
      <DevelopersContent />
    </ForKind>
  );
}
