// Placeholder for the products page until it is built.
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function ProductsPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("products.title")} />;
}
