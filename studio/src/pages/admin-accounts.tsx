// Placeholder for the admin-accounts page (the PAGES engineer replaces this file wholesale; the export name stays AdminAccountsPage).
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function AdminAccountsPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("page.accounts")} />;
}
