// Filling UI strings and showing numbers and dates, with Intl only (no DOM), so tests can run it outside a browser.
export type Lang = "en" | "tr";
export type Vars = Record<string, string | number>;

/** Fills `{name}` with vars.name and `{n|one|other}` (any plural categories in one|few|many|other order) by vars.n. */
export function format(template: string, vars: Vars | undefined, lang: Lang): string {
  if (!vars) return template;
  return template.replace(/\{(\w+)((?:\|[^|}]*)*)\}/g, (whole, name: string, forms: string) => {
    const value = vars[name];
    if (value === undefined) return whole;
    if (!forms) return typeof value === "number" ? formatNumber(value, lang) : value;
    const options = forms.slice(1).split("|");
    const category = new Intl.PluralRules(lang).select(Number(value));
    const order = ["one", "other"];
    const index = order.indexOf(category);
    return options[index >= 0 ? index : options.length - 1] ?? options[options.length - 1] ?? "";
  });
}

export function formatNumber(n: number, lang: Lang): string {
  return new Intl.NumberFormat(lang).format(n);
}

export function formatDate(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

/** A language code's own name in the UI language ("tr" → "Turkish" / "Türkçe"), or the code when it has none. */
export function languageName(code: string, ui: string): string {
  try {
    const name = new Intl.DisplayNames([ui], { type: "language" }).of(code);
    return name ? `${name.charAt(0).toUpperCase()}${name.slice(1)}` : code;
  } catch {
    return code;
  }
}
