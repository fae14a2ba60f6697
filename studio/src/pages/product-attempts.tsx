// The cut-out attempts of a product's current image: each one's result, what it was asked with (frame and marks),
// warnings, which is in use, Accept, and Enlarge to see it large or beside another attempt.
import { useState } from "preact/hooks";
import { api } from "../api";
import { Button } from "../components/button";
import { StatusBadge } from "../components/status-badge";
import { Warnings } from "./product-warnings";
import { Table } from "../components/table";
import { useLoad } from "../hooks";
import { defineMessages, dekupeErrorText, formatDate, useLang, useT } from "../i18n";
import { AttemptViewer } from "./product-attempt-view";
import { cropWords, hintWords } from "./product-attempt-words";

const useMessages = defineMessages({
  en: {
    intro: "Enlarge an attempt to see it on its own or beside another one.",
    asked: "Asked with",
    enlarge: "Enlarge",
  },
  tr: {
    intro: "Bir denemeyi tek başına ya da bir başkasının yanında görmek için büyütün.",
    asked: "Nasıl istendi",
    enlarge: "Büyüt",
  },
});

type Props = { productId: string; version: string; busy: boolean; onAccept(attemptId: string, number: number): void };

export function Attempts({ productId, version, busy, onAccept }: Props) {
  const t = useT();
  const m = useMessages();
  const { lang } = useLang();
  const [shown, setShown] = useState<string | null>(null);
  const attempts = useLoad(async () => {
    const { data } = await api.GET("/v1/products/{id}/dekupe/attempts", { params: { path: { id: productId } } });
    return data?.data ?? [];
  }, [productId, version]);
  const rows = attempts.data ?? [];
  if (rows.length === 0) return null;
  const name = (n: number) => t("product.attempt", { n });
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">{t("product.attempts")}</h2>
      <p class="hint">{m("intro")}</p>
      <Table
        stackOnPhone
        caption={t("product.attempts")}
        rows={rows}
        rowKey={(a) => a.id}
        columns={[
          { key: "n", label: "#", render: (a) => name(a.number) },
          {
            key: "preview",
            label: t("product.cutout"),
            render: (a) =>
              a.preview_url ? (
                <span class="attempt-preview">
                  <img class="attempt-thumb checkerboard" src={a.preview_url} alt={name(a.number)} loading="lazy" />
                  <Button onClick={() => setShown(a.id)} aria-label={`${m("enlarge")}: ${name(a.number)}`}>
                    {m("enlarge")}
                  </Button>
                </span>
              ) : (
                "—"
              ),
          },
          {
            key: "asked",
            label: m("asked"),
            render: (a) => (
              <span class="attempt-asked">
                <span>{cropWords(a.crop, lang)}</span>
                <span>{hintWords(a.hint, lang)}</span>
              </span>
            ),
          },
          {
            key: "status",
            label: t("videos.status"),
            render: (a) => (
              <span class="meta">
                <StatusBadge status={a.status} />
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
                <Button onClick={() => onAccept(a.id, a.number)} disabled={busy} aria-label={`${t("product.accept")}: ${name(a.number)}`}>
                  {t("product.accept")}
                </Button>
              ) : a.in_use ? (
                // Where Accept would be: the one in use says so, rather than leaving the cell empty.
                <strong>{t("product.current")}</strong>
              ) : null,
          },
        ]}
      />
      <AttemptViewer attempts={rows} shown={rows.find((a) => a.id === shown) ?? null} busy={busy} onClose={() => setShown(null)} onAccept={onAccept} />
    </section>
  );
}
