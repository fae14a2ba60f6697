// The template gallery: a group of radio buttons (arrow keys move between them), each with the template's preview
// picture, name, format and price in credits.
import { defineMessages, useLang, useT } from "../i18n";
import type { Template } from "./videos-data";

const useMessages = defineMessages({
  en: { premium: "Premium" },
  tr: { premium: "Premium" },
});

type Props = { templates: Template[]; value: string; onChange(id: string): void; error?: string };

/** The template's picture in the UI's language when the template speaks it (its sample words, price and button). */
function previewIn(tpl: Template, lang: string): string {
  return lang !== "en" && tpl.languages.includes(lang) ? `${tpl.preview_url}?language=${encodeURIComponent(lang)}` : tpl.preview_url;
}

export function TemplateGallery({ templates, value, onChange, error }: Props) {
  const t = useT();
  const { lang } = useLang();
  const m = useMessages();
  return (
    <fieldset aria-describedby={error ? "template-error" : undefined}>
      <legend>{t("videoNew.template")}</legend>
      <div class="gallery">
        {templates.map((tpl) => (
          <label key={tpl.id}>
            <input type="radio" name="template" value={tpl.id} checked={value === tpl.id} onChange={() => onChange(tpl.id)} />
            <img src={previewIn(tpl, lang)} alt="" loading="lazy" />
            <span class="template-name">{tpl.name}</span>
            <span class="template-note">
              {t("video.seconds", { n: tpl.duration })} · {t("common.credits", { n: tpl.credits })}
              {tpl.premium ? ` · ${m("premium")}` : ""}
            </span>
          </label>
        ))}
      </div>
      {error && (
        <p class="field-error" id="template-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
