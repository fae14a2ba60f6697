// Which language a video, estimate or template preview is made in: a BCP 47 tag whose primary language the
// template has its words in, or a 422 naming the field and listing the supported ones (never a silent English).
import { normalizeLanguage } from "../accounts";
import { errors } from "../kernel";
import { baseLanguage, type LoadedTemplate } from "../templates";

/**
 * The canonical tag for `requested` ("TR-tr" → "tr-TR") when the template speaks its primary language. A region or
 * script subtag is kept (it shapes number and price formatting) and the words come from the base language, so
 * "tr-TR" and "de-CH" are accepted wherever "tr" and "de" are. `fromAccount` says the tag was the account's
 * default rather than something the caller sent, which the message then says.
 */
export function templateLanguage(template: LoadedTemplate, requested: string, opts: { field?: string; fromAccount?: boolean } = {}): string {
  const field = opts.field ?? "language";
  const supported = template.info.languages;
  const list = supported.join(", ");
  const tag = normalizeLanguage(requested);
  if (!tag) {
    throw errors.unsupportedLanguage(field, `must be a BCP 47 language code; the template ${template.info.id} supports ${list}`, supported);
  }
  if (supported.includes(baseLanguage(tag))) return tag;
  const message = opts.fromAccount
    ? `the account's language ${tag} is not one the template ${template.info.id} is made in (${list}); send language to choose one`
    : `${tag} is not supported by the template ${template.info.id}; supported: ${list}`;
  throw errors.unsupportedLanguage(field, message, supported);
}
