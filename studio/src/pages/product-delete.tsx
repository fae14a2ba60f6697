// Deleting a product (an account holds five, so this is how room is made): a button, then a dialog to confirm.
import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { api, asProblem } from "../api";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { Dialog } from "../components/dialog";
import { defineMessages, useT } from "../i18n";

const useMessages = defineMessages({
  en: {
    open: "Delete product",
    title: "Delete {name}?",
    body: "The product, its photo and its cut-outs are deleted. Videos already made from it stay.",
    confirm: "Delete",
  },
  tr: {
    open: "Ürünü sil",
    title: "{name} silinsin mi?",
    body: "Ürün, fotoğrafı ve dekupeleri silinir. Ondan yapılmış videolar kalır.",
    confirm: "Sil",
  },
});

export function DeleteProduct({ id, name }: { id: string; name: string }) {
  const t = useT();
  const m = useMessages();
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      const { error: problem } = await api.DELETE("/v1/products/{id}", { params: { path: { id } } });
      if (problem) return setError(asProblem(problem)?.message ?? t("common.error"));
      setOpen(false);
      route("/products");
    } catch {
      setError(t("common.network"));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button variant="danger" onClick={() => setOpen(true)}>
        {m("open")}
      </Button>
      <Dialog
        open={open}
        title={m("title", { name })}
        onClose={() => setOpen(false)}
        closeLabel={t("common.cancel")}
        cancelFirst
        actions={
          <Button variant="danger" busy={busy} onClick={remove}>
            {m("confirm")}
          </Button>
        }
      >
        <p>{m("body")}</p>
        {error && <Alert tone="error">{error}</Alert>}
      </Dialog>
    </>
  );
}
