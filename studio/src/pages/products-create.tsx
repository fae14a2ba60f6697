// The new-product form: an image by file input or drag and drop (checked for type and size before upload), a name,
// then a multipart POST /v1/products; the limit of five and image problems come back as messages.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { fieldErrors, problemOf, send, type ApiProblem } from "../api";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { TextField } from "../components/field";
import { UploadIcon } from "../components/icons";
import { useFocusFirstInvalid } from "../hooks";
import { defineMessages } from "../i18n";
import { useT } from "../i18n";

const useMessages = defineMessages({
  en: {
    type: "Choose a JPEG, PNG or WebP image.",
    size: "The image is larger than 5 MB.",
    limit: "You already have {max} products, the most an account can hold. Delete one to add another.",
    nameNeeded: "Give the product a name.",
    imageNeeded: "Choose an image.",
    chosen: "Chosen: {name}",
  },
  tr: {
    type: "JPEG, PNG ya da WebP bir görsel seçin.",
    size: "Görsel 5 MB'tan büyük.",
    limit: "Zaten {max} ürününüz var; bir hesabın tutabileceği en fazla ürün bu. Yenisini eklemek için birini silin.",
    nameNeeded: "Ürüne bir ad verin.",
    imageNeeded: "Bir görsel seçin.",
    chosen: "Seçilen: {name}",
  },
});

const TYPES = ["image/jpeg", "image/png", "image/webp"];
const MAX_BYTES = 5 * 1024 * 1024;

type Errors = { image?: string; name?: string; form?: string };

/** Turns the API's answer to a failed upload into messages for the image, the name or the whole form. */
function placeProblem(problem: ApiProblem, m: ReturnType<typeof useMessages>): Errors {
  if (problem.code === "product_limit_reached") return { form: m("limit", { max: Number(problem.max_allowed ?? 5) }) };
  const fields = fieldErrors(problem);
  if (fields.name) return { name: fields.name };
  if (fields.image || fields.image_url || /image|file_too_large|payload_too_large|unsupported_media/.test(problem.code)) {
    return { image: fields.image ?? fields.image_url ?? problem.message };
  }
  return { form: problem.message };
}

/** The image input: a labelled file input inside a drop zone, with what was chosen shown before upload. */
function ImageDrop({ file, error, onChoose }: { file: File | null; error?: string; onChoose(file: File | null | undefined): boolean }) {
  const t = useT();
  const m = useMessages();
  const inputId = useId();
  const [dragging, setDragging] = useState(false);
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => {
    if (!file) return setPreview(null);
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);
  const errorId = error ? `${inputId}-error` : undefined;
  return (
    <div
      class={`dropzone${dragging ? " dropzone-active" : ""}${error ? " field-invalid" : ""}`}
      onDragOver={(e) => (e.preventDefault(), setDragging(true))}
      onDragLeave={() => setDragging(false)}
      onDrop={(e) => {
        e.preventDefault();
        setDragging(false);
        onChoose(e.dataTransfer?.files?.[0]);
      }}
    >
      <label for={inputId} class="legend">
        <UploadIcon />{t("products.image")}
      </label>
      <p class="hint" id={`${inputId}-hint`}>
        {dragging ? t("products.drop") : t("products.imageHint")}
      </p>
      <input
        id={inputId}
        type="file"
        name="image"
        accept={TYPES.join(",")}
        aria-describedby={[`${inputId}-hint`, errorId].filter(Boolean).join(" ")}
        aria-invalid={error ? true : undefined}
        onChange={(e) => {
          // A refused file is not kept in the picker either, so it does not look chosen beside the reason.
          if (!onChoose(e.currentTarget.files?.[0])) e.currentTarget.value = "";
        }}
      />
      {file && <p class="hint">{m("chosen", { name: file.name })}</p>}
      {preview && <img src={preview} alt="" class="checkerboard" />}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

export function CreateProductForm({ onCreated, onSubmit, full }: { onCreated(id: string): void; onSubmit?(): void; full: boolean }) {
  const t = useT();
  const m = useMessages();
  const titleId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState("");
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useFocusFirstInvalid(formRef, errors.image || errors.name ? errors : null);

  // Why the last file offered was refused: `Create product` then says that again, not "Choose an image".
  const [refusal, setRefusal] = useState<string | null>(null);
  /** Takes a file if it can be uploaded; returns whether it was taken. */
  const choose = (chosen: File | null | undefined): boolean => {
    if (!chosen) return false;
    const reason = !TYPES.includes(chosen.type) ? m("type") : chosen.size > MAX_BYTES ? m("size") : null;
    setRefusal(reason);
    if (reason) {
      setFile(null);
      setErrors({ image: reason });
      return false;
    }
    setErrors({});
    setFile(chosen);
    // A name to start from: the file's own, without its extension.
    if (!name) setName(chosen.name.replace(/\.[^.]+$/, "").slice(0, 100));
    return true;
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const missing: Errors = {};
    if (!file) missing.image = refusal ?? m("imageNeeded");
    if (!name.trim()) missing.name = m("nameNeeded");
    if (missing.image || missing.name) return setErrors(missing);
    onSubmit?.();
    setBusy(true);
    try {
      const body = new FormData();
      body.set("name", name.trim());
      body.set("image", file!);
      const res = await send("/v1/products", { method: "POST", body });
      if (!res.ok) return setErrors(placeProblem(await problemOf(res), m));
      const product = (await res.json()) as { id: string };
      form.reset();
      setFile(null);
      setName("");
      setErrors({});
      onCreated(product.id);
    } catch {
      setErrors({ form: t("common.network") });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={formRef} class="form card" onSubmit={submit} noValidate aria-labelledby={titleId}>
      <h2 id={titleId}>{t("products.create")}</h2>
      {full && !errors.form && <Alert tone="warning">{m("limit", { max: 5 })}</Alert>}
      {errors.form && <Alert tone="error">{errors.form}</Alert>}
      <ImageDrop file={file} error={errors.image} onChoose={choose} />
      <TextField label={t("products.name")} name="name" maxLength={200} required value={name} onValue={setName} error={errors.name} />
      <div>
        <Button type="submit" variant="primary" busy={busy}>
          {t("products.submit")}
        </Button>
      </div>
    </form>
  );
}
