// Placeholder for the product page until it is built.
import { Placeholder } from "../components/page";
import { useT } from "../i18n";

export function ProductPage(_props: { id?: string }) {
  const t = useT();
  return <Placeholder title={t("product.original")} />;
}
