// The template's own fields, generated from its prompt_schema (JSON Schema): text, number, number-or-text, yes/no,
// choice lists, lists of short texts (one per line), colours (a picker beside the text), the currency (a list of
// common ones) and nested groups such as colours; each with its API error inline.
import { fieldError } from "../api";
import { Field } from "../components/field";
import { defineMessages, useLang } from "../i18n";
import { fieldDescription, fieldLabel, kindOf, type Schema, type Values } from "./video-prompt";

export { buildPrompt, type Schema, type Values } from "./video-prompt";

const useMessages = defineMessages({
  en: {
    lines: "One per line, at most {n}.",
    colour: "Pick a colour, or type its code (such as #1a2b3c). Leave it empty for the template's own.",
    pick: "{label}: colour picker",
    none: "—",
    currencyDefault: "The usual one for the video's language",
  },
  tr: {
    lines: "Her satıra bir tane, en fazla {n}.",
    colour: "Bir renk seçin ya da kodunu yazın (ör. #1a2b3c). Şablonun kendi rengi için boş bırakın.",
    pick: "{label}: renk seçici",
    none: "—",
    currencyDefault: "Videonun dilinde olağan olan",
  },
});

/** The colour pattern the built-in templates use (fields.colors in src/templates/define.ts). */
const COLOUR_PATTERN = "^#[0-9a-fA-F]{6}$";
/** Currencies a shop most often sells in, offered as a list; the API takes any three-letter code. */
const CURRENCIES = ["USD", "EUR", "TRY", "GBP", "JPY", "SAR"];

/** A currency's name in the UI's language, with its code ("Euro (EUR)"); the code alone where the browser has no name. */
function currencyName(code: string, lang: string): string {
  try {
    const name = new Intl.DisplayNames([lang], { type: "currency" }).of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

type Props = { schema: Schema | null; values: Values; errors: Record<string, string>; onChange(path: string, value: string): void };

/** Every field of the schema, in its order, with its hint (the schema's description) and its error. */
/** `colourHint`: the id of the hint a group of colours says once for its fields (how a colour is given), or none. */
export function PromptFields({ schema, values, errors, onChange, prefix = "", colourHint }: Props & { prefix?: string; colourHint?: string }) {
  const { lang } = useLang();
  const m = useMessages();
  const required = new Set(schema?.required ?? []);
  return (
    <>
      {Object.entries(schema?.properties ?? {}).map(([name, field]) => {
        const path = prefix ? `${prefix}.${name}` : name;
        const label = fieldLabel(name, field, lang);
        if (kindOf(field) === "group") {
          // A group of colours (the brand's) says how a colour is given once, not under each of its four fields; each
          // of them is still described by it for a screen reader, as is the group.
          const members = Object.values(field.properties ?? {});
          const colours = members.length > 0 && members.every((f) => f.pattern === COLOUR_PATTERN);
          const hint = [field.description ? fieldDescription(field, lang) : "", colours ? m("colour") : ""].filter(Boolean).join(" ");
          const hintId = hint ? `hint-${path}` : undefined;
          return (
            <fieldset key={path} aria-describedby={hintId}>
              <legend>{label}</legend>
              {hint && (
                <p class="hint" id={hintId}>
                  {hint}
                </p>
              )}
              <div class="form">
                <PromptFields schema={field} values={values} errors={errors} onChange={onChange} prefix={path} colourHint={colours ? hintId : undefined} />
              </div>
            </fieldset>
          );
        }
        return (
          <OneField
            key={path}
            path={path}
            label={label}
            schema={field}
            required={required.has(name)}
            colourHint={colourHint}
            value={values[path] ?? ""}
            error={fieldError(errors, `user_prompt.${path}`)}
            onChange={(v) => onChange(path, v)}
          />
        );
      })}
    </>
  );
}

type OneProps = { path: string; label: string; schema: Schema; required: boolean; colourHint?: string; value: string; error?: string; onChange(value: string): void };

function OneField({ path, label, schema, required, colourHint, value, error, onChange }: OneProps) {
  const m = useMessages();
  const { lang } = useLang();
  const kind = kindOf(schema);
  const text = schema.anyOf?.find((s) => s.type === "string") ?? schema;
  // A raw pattern helps nobody: colours get a picker, and the currency (a code the API checks) a list of names.
  const colour = schema.pattern === COLOUR_PATTERN;
  const currency = path === "currency" && kind === "text";
  const hints = [currency ? "" : fieldDescription(schema, lang), kind === "list" && schema.maxItems ? m("lines", { n: schema.maxItems }) : "", colour && !colourHint ? m("colour") : ""];
  const hint = hints.filter(Boolean).join(" ") || undefined;
  return (
    <Field label={label} hint={hint} error={error} required={required} alsoDescribedBy={colour ? colourHint : undefined}>
      {(control) =>
        colour ? (
          <span class="colour-pair">
            {/* The picker needs a full #rrggbb; until the text is one it holds black but shows a crossed-out swatch
                (no colour: the template's own), and the text stays as typed. */}
            <input
              type="color"
              class={/^#[0-9a-fA-F]{6}$/.test(value) ? undefined : "colour-unset"}
              aria-label={m("pick", { label })}
              value={/^#[0-9a-fA-F]{6}$/.test(value) ? value.toLowerCase() : "#000000"}
              onInput={(e) => onChange(e.currentTarget.value)}
            />
            <input {...control} name={path} type="text" spellcheck={false} autoComplete="off" value={value} onInput={(e) => onChange(e.currentTarget.value)} />
          </span>
        ) : currency ? (
          <select {...control} name={path} value={value.toUpperCase()} onChange={(e) => onChange(e.currentTarget.value)}>
            <option value="">{m("currencyDefault")}</option>
            {[...CURRENCIES, ...(value && !CURRENCIES.includes(value.toUpperCase()) ? [value.toUpperCase()] : [])].map((code) => (
              <option key={code} value={code}>
                {currencyName(code, lang)}
              </option>
            ))}
          </select>
        ) : kind === "boolean" ? (
          <span class="check">
            <input {...control} type="checkbox" name={path} checked={value === "true"} onChange={(e) => onChange(e.currentTarget.checked ? "true" : "")} />
          </span>
        ) : kind === "enum" ? (
          <select {...control} name={path} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
            <option value="">{m("none")}</option>
            {(schema.enum ?? []).map((v) => (
              <option key={String(v)} value={String(v)}>
                {String(v)}
              </option>
            ))}
          </select>
        ) : kind === "list" ? (
          <textarea {...control} name={path} rows={Math.min(schema.maxItems ?? 3, 5)} value={value} onInput={(e) => onChange(e.currentTarget.value)} />
        ) : (
          <input
            {...control}
            name={path}
            type={(kind === "number" ? "number" : "text") as "text"}
            inputMode={kind === "numberOrText" ? "decimal" : undefined}
            min={schema.minimum}
            max={schema.maximum}
            maxLength={text.maxLength}
            value={value}
            onInput={(e) => onChange(e.currentTarget.value)}
          />
        )
      }
    </Field>
  );
}
