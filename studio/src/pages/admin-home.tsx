// Placeholder for the admin-home page (the PAGES engineer replaces this file wholesale; the export name stays AdminHomePage).
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function AdminHomePage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("page.health")} />;
}
