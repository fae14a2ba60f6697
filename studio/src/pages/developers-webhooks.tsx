// The Developers page's webhook settings: the signing secret (hidden until `Reveal secret`; `Rotate secret` behind a
// confirmation shows the new one and when the old one stops signing) and the account-level webhook URL.
import { useEffect, useState } from "preact/hooks";
import { api, fieldError } from "../api";
import { messageOf, must } from "../call";
import { Alert } from "../components/alert";
import { Button } from "../components/button";
import { ConfirmButton } from "../components/confirm-button";
import { CopyField } from "../components/copy-field";
import { TextField } from "../components/field";
import { useSubmit } from "../components/use-submit";
import { formatDate, useLang } from "../i18n";
import { useDevelopersMessages } from "../i18n/developers";

export function SecretCard() {
  const m = useDevelopersMessages();
  const { lang } = useLang();
  const [secret, setSecret] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const reveal = async () => {
    if (secret) return setSecret(null);
    setBusy(true);
    setError(null);
    try {
      setSecret((await must(api.GET("/v1/webhooks/secret"))).secret);
    } catch (e) {
      setError(messageOf(e, m("network")));
    } finally {
      setBusy(false);
    }
  };
  const rotate = async () => {
    const out = await must(api.POST("/v1/webhooks/secret/rotate", { body: {} }));
    setSecret(out.secret);
    setNotice(m("rotated", { time: formatDate(out.previous_expires_at, lang) }));
  };
  return (
    <div class="card form">
      <h3 id="secret-heading">{m("secret")}</h3>
      <p class="hint">{m("secretIntro")}</p>
      {secret && <CopyField label={m("secretValue")} value={secret} />}
      {notice && <Alert tone="success">{notice}</Alert>}
      {error && <Alert tone="error">{error}</Alert>}
      <div class="row">
        <Button onClick={reveal} busy={busy} aria-expanded={secret !== null}>
          {secret ? m("hideSecret") : m("revealSecret")}
        </Button>
        <ConfirmButton label={m("rotateSecret")} title={m("rotateTitle")} onConfirm={rotate} describe={(e) => messageOf(e, m("network"))}>
          <p>{m("rotateText")}</p>
        </ConfirmButton>
      </div>
    </div>
  );
}

export function AccountUrlCard() {
  const m = useDevelopersMessages();
  const [url, setUrl] = useState("");
  const [loadError, setLoadError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    must(api.GET("/v1/webhooks/endpoint"))
      .then((out) => setUrl(out.url ?? ""))
      .catch((e) => setLoadError(messageOf(e, m("network"))));
  }, []);
  const { busy, error: saveError, fields, submit: save } = useSubmit(async () => {
    setNotice(null);
    setLoadError(null);
    const out = await must(api.PUT("/v1/webhooks/endpoint", { body: { url: url.trim() || null } }));
    setUrl(out.url ?? "");
    setNotice(out.url ? m("urlSaved") : m("urlCleared"));
  }, m("network"), ["url"]);
  const error = saveError ?? loadError;
  return (
    <form class="card form" onSubmit={save} aria-labelledby="account-url-heading">
      <h3 id="account-url-heading">{m("accountUrl")}</h3>
      <div class="inline-form">
        <TextField
          label={m("url")}
          type="url"
          hint={m("accountUrlHint")}
          placeholder="https://"
          maxLength={2048}
          value={url}
          onValue={setUrl}
          error={fieldError(fields, "url")}
        />
        <Button type="submit" busy={busy}>
          {m("saveUrl")}
        </Button>
      </div>
      {notice && <Alert tone="success">{notice}</Alert>}
      {error && <Alert tone="error">{error}</Alert>}
    </form>
  );
}
