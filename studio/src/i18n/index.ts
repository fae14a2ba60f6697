// UI language: the browser's language picks English or Turkish, a header switch overrides it (kept in localStorage);
// t(key, vars) fills {name} values and {n|one|other} plurals through Intl.PluralRules; dates and numbers through Intl.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { en, type MessageKey } from "./en";
import { tr } from "./tr";

import { format, type Lang, type Vars } from "./format";

export { format, formatDate, formatNumber, languageName, type Lang, type Vars } from "./format";
export { dekupeErrorText, fieldText, problemText } from "./errors";
export type { MessageKey };
export const LANGS: Lang[] = ["en", "tr"];

const STORAGE_KEY = "vitrin.studio.language";

/** The language a first visit shows: a saved choice, else the browser's first English or Turkish preference. */
export function initialLang(): Lang {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === "en" || saved === "tr") return saved;
  } catch {
    // Storage can be off (private modes); the browser's language still applies.
  }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = tag.toLowerCase().split("-")[0];
    if (base === "tr" || base === "en") return base;
  }
  return "en";
}

export function saveLang(lang: Lang): void {
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not saved: the switch still works for this visit.
  }
  document.documentElement.lang = lang;
}

export type LangState = { lang: Lang; setLang(lang: Lang): void };
export const LangContext = createContext<LangState>({ lang: "en", setLang: () => undefined });

export function useLang(): LangState {
  return useContext(LangContext);
}

export type Translate<K extends string> = (key: K, vars?: Vars) => string;

/**
 * A page's own strings (so pages need not share one big file): `const useMessages = defineMessages({ en, tr })`, then
 * `const m = useMessages(); m("key", { n: 2 })`. The tr object must have exactly en's keys.
 */
export function defineMessages<K extends string>(dictionaries: { en: Record<K, string>; tr: Record<K, string> }) {
  return function useMessages(): Translate<K> {
    const { lang } = useLang();
    const dictionary = dictionaries[lang];
    return (key, vars) => format(dictionary[key] ?? dictionaries.en[key] ?? key, vars, lang);
  };
}

/** The shared strings (navigation, statuses, the Studio's own pages). */
export const useT = defineMessages<MessageKey>({ en, tr });
