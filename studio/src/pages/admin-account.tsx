// Placeholder for the admin-account page (the PAGES engineer replaces this file wholesale; the export name stays AdminAccountPage).
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function AdminAccountPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("page.account")} />;
}
