// The page for an address the Studio has no page for, with the way back to the start (Products, or an operator's Health).
import { Page } from "../components/page";
import { useT } from "../i18n";

export function NotFoundPage() {
  const t = useT();
  return (
    <Page title={t("page.notFound")}>
      <p>{t("page.notFoundText")}</p>
      <p>
        <a href="/">{t("page.notFoundHome")}</a>
      </p>
    </Page>
  );
}
