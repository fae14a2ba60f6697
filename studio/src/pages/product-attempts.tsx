// The cut-out attempts of a product's current image: each one's result and warnings, which is in use, and Accept.
import { api } from "../api";
import { Button } from "../components/button";
import { StatusBadge } from "../components/status-badge";
import { Warnings } from "./product-warnings";
import { Table } from "../components/table";
import { useLoad } from "../hooks";
import { dekupeErrorText, formatDate, useLang, useT } from "../i18n";

type Props = { productId: string; version: string; busy: boolean; onAccept(attemptId: string): void };

export function Attempts({ productId, version, busy, onAccept }: Props) {
  const t = useT();
  const { lang } = useLang();
  const attempts = useLoad(async () => {
    const { data } = await api.GET("/v1/products/{id}/dekupe/attempts", { params: { path: { id: productId } } });
    return data?.data ?? [];
  }, [productId, version]);
  const rows = attempts.data ?? [];
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">{t("product.attempts")}</h2>
      <Table
        stackOnPhone
        caption={t("product.attempts")}
        rows={rows}
        rowKey={(a) => a.id}
        columns={[
          { key: "n", label: "#", render: (a) => t("product.attempt", { n: a.number }) },
          {
            key: "preview",
            label: t("product.cutout"),
            render: (a) =>
              a.preview_url ? <img class="attempt-thumb checkerboard" src={a.preview_url} alt={t("product.attempt", { n: a.number })} loading="lazy" /> : "—",
          },
          {
            key: "status",
            label: t("videos.status"),
            render: (a) => (
              <span class="meta">
                <StatusBadge status={a.status} />
                {a.in_use && <strong>{t("product.current")}</strong>}
                {a.error && <span>{dekupeErrorText(a.error_code, a.error, lang)}</span>}
              </span>
            ),
          },
          { key: "warnings", label: t("product.warnings"), render: (a) => <Warnings codes={a.warnings} /> },
          { key: "at", label: t("videos.created"), render: (a) => formatDate(a.created_at, lang) },
          {
            key: "accept",
            label: t("product.accept"),
            render: (a) =>
              a.status === "ready" && !a.in_use ? (
                <Button onClick={() => onAccept(a.id)} disabled={busy} aria-label={`${t("product.accept")}: ${t("product.attempt", { n: a.number })}`}>
                  {t("product.accept")}
                </Button>
              ) : null,
          },
        ]}
      />
    </section>
  );
}
