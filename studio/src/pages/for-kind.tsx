// Keeps a page to the session kind it is for: an operator's page opened in an account's session (or an account's page
// in the operator's) says so and links home, instead of asking the API for what it would refuse (a 401 there would
// end the Studio session in this tab).
import type { ComponentChildren } from "preact";
import { LinkButton } from "../components/button";
import { Page } from "../components/page";
import { defineMessages } from "../i18n";
import { useSession } from "../session";

const useMessages = defineMessages({
  en: {
    title: "Not available here",
    admin: "This page is for the service's operator: sign in with the admin token to use it.",
    account: "This page belongs to an account. Signed in as the operator, use Accounts, Jobs and Health.",
    home: "Go to the start page",
  },
  tr: {
    title: "Burada kullanılamaz",
    admin: "Bu sayfa hizmetin işletmecisi içindir: kullanmak için yönetici anahtarıyla giriş yapın.",
    account: "Bu sayfa bir hesaba aittir. İşletmeci olarak Hesaplar, İşler ve Sağlık sayfalarını kullanın.",
    home: "Başlangıç sayfasına git",
  },
});

export function ForKind({ kind, children }: { kind: "account" | "admin"; children: ComponentChildren }) {
  const m = useMessages();
  const { session } = useSession();
  if (!session || session.kind === kind) return <>{children}</>;
  return (
    <Page title={m("title")}>
      <p>{m(kind)}</p>
      <LinkButton href={session.kind === "admin" ? "/admin" : "/products"}>{m("home")}</LinkButton>
    </Page>
  );
}
