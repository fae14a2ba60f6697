// A product: photo and cut-out side by side under a before/after slider, the cut-out's status (polled while it is
// being made), attempts left, Retry and Revert, and the list of attempts with Accept.
import { useState } from "preact/hooks";
import { api, asProblem } from "../api";
import { Alert } from "../components/alert";
import { Button, LinkButton } from "../components/button";
import { SelectField } from "../components/field";
import { BackIcon } from "../components/icons";
import { Page } from "../components/page";
import { Loading, Spinner } from "../components/spinner";
import { StatusBadge } from "../components/status-badge";
import { moveFocus } from "../focus";
import { useLoad, usePoll } from "../hooks";
import { dekupeErrorText, defineMessages, useLang, useT } from "../i18n";
import { Compare } from "./product-compare";
import { Attempts } from "./product-attempts";
import { Warnings } from "./product-warnings";
import { DeleteProduct } from "./product-delete";
import { HintPicker, hintOf } from "./product-hint";
import { useSavedMarks } from "./product-hint-saved";
import { cropWords, type Crop } from "./product-attempt-words";

async function loadProduct(id: string) {
  const { data, error, response } = await api.GET("/v1/products/{id}", { params: { path: { id } } });
  if (response.status === 404) return null;
  if (error || !data) throw new Error(asProblem(error)?.message ?? `GET /v1/products/${id} failed`);
  return data;
}

type Dekupe = NonNullable<Awaited<ReturnType<typeof loadProduct>>>["dekupe"];

const useMessages = defineMessages({
  en: {
    crop: "Next attempt's frame",
    cropHint: "Around the product: the cut-out is trimmed to the product. The whole photo: the cut-out keeps the photo's size and framing.",
    marksNone: "To steer the next attempt, mark the product on the photo under “Point to the product”.",
    marksSome: "Retry uses your {n} {n|mark|marks} from “Point to the product”.",
  },
  tr: {
    crop: "Sonraki denemenin çerçevesi",
    cropHint: "Ürünün çevresi: dekupe ürünün sınırlarına göre kırpılır. Fotoğrafın tamamı: dekupe fotoğrafın boyutunu ve kadrajını korur.",
    marksNone: "Sonraki denemeyi yönlendirmek için “Ürünü gösterin” bölümünde fotoğrafta ürünü işaretleyin.",
    marksSome: "Yeniden dene, “Ürünü gösterin” bölümündeki {n} işaretinizi kullanır.",
  },
});

type PanelProps = { dekupe: Dekupe; busy: boolean; marks: number; onRetry(crop: Crop): void; onRevert(): void };

/**
 * The cut-out's state and what can be done about it: Retry (with the frame to cut, and a line on the marks it will
 * use, which are placed in their own panel further down), Revert, attempts left.
 */
function CutoutPanel({ dekupe: d, busy, marks, onRetry, onRevert }: PanelProps) {
  const t = useT();
  const { lang } = useLang();
  const m = useMessages();
  const [crop, setCrop] = useState<Crop>("subject");
  const left = Number(d.retries_left);
  const processing = d.status === "processing";
  return (
    <section id="cutout-panel" tabIndex={-1} class="card product-side" aria-label={t("product.cutout")}>
      <p class="meta">
        <StatusBadge status={d.status} />
      </p>
      {processing && (
        <p class="loading" role="status">
          <Spinner label="" />{t("product.working")}
        </p>
      )}
      {d.status === "failed" && <Alert tone="error">{t("product.failed", { reason: dekupeErrorText(d.error_code, d.error, lang) ?? t("common.error") })}</Alert>}
      {/* A photo used as it is has no cut-out to warn about (an earlier attempt's warnings stay in Attempts). */}
      {d.status === "ready" && <Warnings codes={d.warnings} />}
      <p>{t("product.attemptsLeft", { n: left })}</p>
      <SelectField
        label={m("crop")}
        hint={m("cropHint")}
        name="crop"
        value={crop}
        onValue={(v) => setCrop(v as Crop)}
        options={[{ value: "subject", label: cropWords("subject", lang) }, { value: "none", label: cropWords("none", lang) }]}
      />
      {left > 0 && (
        <p class="hint" data-testid="retry-marks" aria-live="polite">
          {marks > 0 ? m("marksSome", { n: marks }) : m("marksNone")}
        </p>
      )}
      <div class="row">
        <Button variant="primary" onClick={() => onRetry(crop)} busy={busy} disabled={processing || left <= 0}>
          {t("product.retry")}
        </Button>
        <Button onClick={onRevert} disabled={busy || processing || d.status === "off"}>
          {t("product.revert")}
        </Button>
      </div>
    </section>
  );
}

/** What the last action did; `whileProcessing` ones ("a new attempt started") go once the attempt has ended. */
type Notice = { tone: "success" | "error"; text: string; whileProcessing?: boolean } | null;

export function ProductPage({ id }: { id: string }) {
  const t = useT();
  const product = useLoad(() => loadProduct(id), [id]);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<Notice>(null);
  const p = product.data;
  // Unsent marks outlast a visit elsewhere (kept for this product's photo until a Retry uses them or they are cleared).
  const [marks, setMarks] = useSavedMarks(id, p?.id === id ? p.original_image_url : undefined);
  usePoll(p?.dekupe.status === "processing", product.reload);

  const act = async (run: () => Promise<{ error?: unknown }>, done: string, whileProcessing = false) => {
    setBusy(true);
    setNotice(null);
    try {
      const { error } = await run();
      setNotice(error ? { tone: "error", text: asProblem(error)?.message ?? t("common.error") } : { tone: "success", text: done, whileProcessing });
      await product.reload();
      // A new attempt's message goes when the attempt ends: the focus goes to the cut-out panel, which stays.
      if (!error && whileProcessing) moveFocus(document.getElementById("cutout-panel"));
    } catch {
      setNotice({ tone: "error", text: t("common.network") });
    } finally {
      setBusy(false);
    }
  };
  const path = { params: { path: { id } } };
  const retry = (crop: Crop) =>
    act(async () => {
      const answer = await api.POST("/v1/products/{id}/dekupe/retry", { ...path, body: { crop, hint: hintOf(marks) } });
      // The marks were for this attempt; the next one starts from a clean photo.
      if (!answer.error) setMarks([]);
      return answer;
    }, t("product.retried"), true);
  const revert = () => act(() => api.POST("/v1/products/{id}/dekupe/revert", { ...path, body: {} }), t("product.reverted"));
  const accept = (attempt_id: string, n: number) =>
    act(() => api.POST("/v1/products/{id}/dekupe/accept", { ...path, body: { attempt_id } }), t("product.accepted", { n }));

  const back = (
    <a href="/products">
      <BackIcon size={16} />{t("product.back")}
    </a>
  );
  if (product.loading && !p) return <Loading />;
  if (!p) {
    return (
      <Page title={t("product.notFound")} back={back}>
        {product.error && <Alert tone="error">{product.error}</Alert>}
      </Page>
    );
  }
  const d = p.dekupe;
  const processing = d.status === "processing";
  return (
    <Page
      title={p.name}
      back={back}
      actions={
        <>
          <LinkButton href={`/videos/new?product=${encodeURIComponent(p.id)}`} variant="secondary">
            {t("videos.create")}
          </LinkButton>
          <DeleteProduct id={p.id} name={p.name} />
        </>
      }
    >
      {notice && !(notice.whileProcessing && !processing) && (
        <Alert tone={notice.tone} focusKey={notice.whileProcessing ? null : notice}>
          {notice.text}
        </Alert>
      )}
      <div class="two-col">
        <section aria-label={t("product.compare")}>
          {/* image_url is the cut-out in use (the accepted attempt's, or the latest) while dekupe is on and ready. */}
          {d.status === "ready" && p.image_url !== p.original_image_url ? (
            <Compare photo={p.original_image_url} cutout={p.image_url} sourceBox={d.source_box} name={p.name} />
          ) : (
            // The checkerboard shows a cut-out's transparency; behind the original photo it would read as transparent.
            <img class={`thumb product-photo${p.image_url !== p.original_image_url ? " checkerboard" : ""}`} src={p.image_url} alt={t("products.photo", { name: p.name })} />
          )}
        </section>
        <CutoutPanel dekupe={d} busy={busy} marks={marks.length} onRetry={retry} onRevert={revert} />
      </div>
      {/* Marks steer a retry, so they are there while one is left, also after "Use the original photo" (which keeps the retries). */}
      {Number(d.retries_left) > 0 && <HintPicker photo={p.original_image_url} marks={marks} onChange={setMarks} />}
      <Attempts productId={id} version={`${d.updated_at}-${d.status}`} busy={busy || processing} onAccept={accept} />
    </Page>
  );
}
