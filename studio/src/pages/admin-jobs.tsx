// Placeholder for the admin-jobs page (the PAGES engineer replaces this file wholesale; the export name stays AdminJobsPage).
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function AdminJobsPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("page.jobs")} />;
}
