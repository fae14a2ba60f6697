// The Create-video form's draft, kept in the tab's sessionStorage per account and product: a half-filled form left
// for another page (or a reload) comes back as it was, and goes once its video is created. Plain TypeScript, no DOM
// (the storage is passed in), so tests run it outside a browser.

/** What the form keeps of a product's draft; the product is its key. */
export type Draft = {
  templateId: string;
  language: string;
  format: string;
  /** Whether the customer picked the format (a template then no longer moves it). */
  formatPicked: boolean;
  music: string;
  /** The template's fields by path, as typed. */
  values: Record<string, string>;
};

/** One account's drafts: by product id, oldest first, and the product last worked on. */
type Drafts = { last: string | null; drafts: Record<string, Draft> };

export type DraftStore = Pick<Storage, "getItem" | "setItem" | "removeItem">;

/** Drafts kept per account: the oldest goes past this, so a long visit cannot fill the tab's storage. */
const MAX_DRAFTS = 20;

const keyOf = (account: string) => `vitrin.studio.videoDrafts.${account}`;

const isText = (v: unknown): v is string => typeof v === "string";

/** A stored draft as a Draft, or null when it is not one (another version's, or edited by hand). */
function asDraft(value: unknown): Draft | null {
  if (!value || typeof value !== "object") return null;
  const d = value as Record<string, unknown>;
  if (![d.templateId, d.language, d.format, d.music].every(isText) || typeof d.formatPicked !== "boolean") return null;
  if (!d.values || typeof d.values !== "object") return null;
  const values = Object.fromEntries(Object.entries(d.values as object).filter(([, v]) => isText(v))) as Record<string, string>;
  return { templateId: d.templateId as string, language: d.language as string, format: d.format as string, formatPicked: d.formatPicked, music: d.music as string, values };
}

function read(store: DraftStore, account: string): Drafts {
  try {
    const parsed = JSON.parse(store.getItem(keyOf(account)) ?? "null") as { last?: unknown; drafts?: Record<string, unknown> } | null;
    const drafts: Record<string, Draft> = {};
    for (const [product, value] of Object.entries(parsed?.drafts ?? {})) {
      const draft = asDraft(value);
      if (draft) drafts[product] = draft;
    }
    const last = isText(parsed?.last) && drafts[parsed.last] ? parsed.last : null;
    return { last, drafts };
  } catch {
    // Unreadable (or storage off): no draft, as in a new tab.
    return { last: null, drafts: {} };
  }
}

function write(store: DraftStore, account: string, drafts: Drafts): void {
  try {
    if (Object.keys(drafts.drafts).length === 0) store.removeItem(keyOf(account));
    else store.setItem(keyOf(account), JSON.stringify(drafts));
  } catch {
    // Storage full or off: the form still works, it is just not kept.
  }
}

/** The draft of this account's form for the product, or null. */
export function loadDraft(store: DraftStore, account: string, product: string): Draft | null {
  return read(store, account).drafts[product] ?? null;
}

/** The product whose draft the account worked on last (the form opened without a product starts there), or null. */
export function lastDraftProduct(store: DraftStore, account: string): string | null {
  return read(store, account).last;
}

/** Keeps the form as it stands as the product's draft, and the product as the one worked on last. */
export function saveDraft(store: DraftStore, account: string, product: string, draft: Draft): void {
  const { drafts } = read(store, account);
  delete drafts[product];
  drafts[product] = draft;
  const products = Object.keys(drafts);
  for (const old of products.slice(0, Math.max(0, products.length - MAX_DRAFTS))) delete drafts[old];
  write(store, account, { last: product, drafts });
}

/** Forgets the product's draft (its video was created). */
export function clearDraft(store: DraftStore, account: string, product: string): void {
  const { last, drafts } = read(store, account);
  delete drafts[product];
  write(store, account, { last: last === product ? null : last, drafts });
}

/** What the form offers now, to fit a draft made before into it. */
export type Offered = { templates: { id: string; languages: string[] }[]; music: { id: string }[]; formats: readonly string[] };

/**
 * The draft with what is no longer on offer taken out: a template gone (the form's default then), a language the
 * template does not speak (the account's then), a format or track that does not exist. A track is kept while the
 * tracks are not known yet (an empty list), so a form showing early does not lose it.
 */
export function fitDraft(draft: Draft, offered: Offered): Draft {
  const template = offered.templates.find((t) => t.id === draft.templateId);
  const formatKnown = offered.formats.includes(draft.format);
  const musicKnown = ["auto", "none"].includes(draft.music) || offered.music.length === 0 || offered.music.some((m) => m.id === draft.music);
  return {
    templateId: template ? draft.templateId : "",
    language: template && (draft.language === "" || template.languages.includes(draft.language)) ? draft.language : "",
    format: formatKnown ? draft.format : (offered.formats[0] ?? ""),
    formatPicked: formatKnown && draft.formatPicked,
    music: musicKnown ? draft.music : "auto",
    values: draft.values,
  };
}

/** The tab's sessionStorage, or null where the browser refuses it (storage turned off). */
export function tabStorage(): DraftStore | null {
  try {
    return globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}
