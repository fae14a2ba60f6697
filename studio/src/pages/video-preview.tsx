// A still of the video before paying for it: POST /v1/videos/preview draws one frame with the form as it stands
// (the chosen product, template, text and format), shown from a blob: URL (the CSP allows img-src blob:).
import { useEffect, useState } from "preact/hooks";
import { problemOf, send } from "../api";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { defineMessages, useT } from "../i18n";
import type { VideoRequest } from "./video-estimate";

const useMessages = defineMessages({
  en: { show: "Preview a frame", again: "Preview again", alt: "A frame of the video as the form stands", free: "Previews cost no credits." },
  tr: { show: "Bir kareyi önizle", again: "Yeniden önizle", alt: "Formdaki haliyle videodan bir kare", free: "Önizleme kredi harcamaz." },
});

export function FramePreview({ request }: { request: VideoRequest | null }) {
  const t = useT();
  const m = useMessages();
  const [url, setUrl] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The object URL holds the image in memory until it is revoked: on a new preview and when the page goes.
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  const draw = async () => {
    if (!request) return;
    setBusy(true);
    setError(null);
    try {
      const res = await send("/v1/videos/preview", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
      if (!res.ok) return setError((await problemOf(res)).message);
      setUrl(URL.createObjectURL(await res.blob()));
    } catch {
      setError(t("common.network"));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="frame-preview">
      <div class="row">
        <Button onClick={draw} busy={busy} disabled={!request}>
          {url ? m("again") : m("show")}
        </Button>
        <span class="hint">{m("free")}</span>
      </div>
      {error && <Alert tone="error">{error}</Alert>}
      {url && <img src={url} alt={m("alt")} class="frame-image" />}
    </div>
  );
}
