// The page for an address the Studio has no page for.
import { Page } from "../components/page";
import { useT } from "../i18n";

export function NotFoundPage() {
  const t = useT();
  return (
    <Page title={t("page.notFound")}>
      <p>{t("page.notFoundText")}</p>
    </Page>
  );
}
