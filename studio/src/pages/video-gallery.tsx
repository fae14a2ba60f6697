// The template gallery: a group of radio buttons (arrow keys move between them), each with the template's preview
// picture, name, format and price in credits, and below them what the chosen template does, in the interface's language.
import { useState } from "preact/hooks";
import { Spinner } from "../components/spinner";
import { defineMessages, useLang, useT } from "../i18n";
import { templateWords, type Template } from "./videos-data";

const useMessages = defineMessages({
  en: { premium: "Premium", noPicture: "No preview" },
  tr: { premium: "Premium", noPicture: "Önizleme yok" },
});

/** `language`: the one the video will have (chosen, or the account's), which the pictures speak. */
type Props = { templates: Template[]; language: string; value: string; onChange(id: string): void; error?: string };

/**
 * The template's picture in the video's language when the template speaks it (its sample words, price and button), as
 * the video will be; English, the template's fallback, otherwise.
 */
function previewIn(tpl: Template, lang: string): string {
  return lang !== "en" && tpl.languages.includes(lang) ? `${tpl.preview_url}?language=${encodeURIComponent(lang)}` : tpl.preview_url;
}

/**
 * A template's picture, a spinner over its place until it has come (a template's first preview in a language is drawn
 * when asked for, which takes a moment), or a note when it cannot be had. Keyed by its address, so a picture in
 * another language starts over.
 */
function Picture({ src }: { src: string }) {
  const m = useMessages();
  const [state, setState] = useState<"loading" | "ready" | "failed">("loading");
  return (
    <span class="gallery-picture" data-state={state}>
      <img src={src} alt="" loading="lazy" onLoad={() => setState("ready")} onError={() => setState("failed")} />
      {state === "loading" && <Spinner label="" />}
      {/* Seen, not heard: the picture is decoration, so the radio's name stays the template's. */}
      {state === "failed" && (
        <span class="gallery-picture-note" aria-hidden="true">
          {m("noPicture")}
        </span>
      )}
    </span>
  );
}

export function TemplateGallery({ templates, language, value, onChange, error }: Props) {
  const t = useT();
  const m = useMessages();
  const { lang } = useLang();
  const chosen = templates.find((tpl) => tpl.id === value);
  return (
    <fieldset aria-describedby={error ? "template-error" : undefined}>
      <legend>{t("videoNew.template")}</legend>
      <div class="gallery">
        {templates.map((tpl) => (
          <label key={tpl.id}>
            <input
              type="radio"
              name="template"
              value={tpl.id}
              checked={value === tpl.id}
              onChange={() => onChange(tpl.id)}
              aria-describedby={value === tpl.id ? "template-about" : undefined}
            />
            <Picture key={previewIn(tpl, language)} src={previewIn(tpl, language)} />
            <span class="template-name">{templateWords(tpl, lang).name}</span>
            <span class="template-note">
              {t("video.seconds", { n: tpl.duration })} · {t("common.credits", { n: tpl.credits })}
              {tpl.premium ? ` · ${m("premium")}` : ""}
            </span>
          </label>
        ))}
      </div>
      {/* The chosen template's description: too long for a card, it is said once, for the one that counts. */}
      {chosen && (
        <p class="hint template-about" id="template-about">
          {templateWords(chosen, lang).description}
        </p>
      )}
      {error && (
        <p class="field-error" id="template-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
