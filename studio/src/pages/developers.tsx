// Placeholder for the developers page (the PAGES engineer replaces this file wholesale; the export name stays DevelopersPage).
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function DevelopersPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("page.developers")} />;
}
