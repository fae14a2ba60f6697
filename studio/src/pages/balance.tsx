// Placeholder for the balance page (the PAGES engineer replaces this file wholesale; the export name stays BalancePage).
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function BalancePage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("page.balance")} />;
}
