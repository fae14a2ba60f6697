// A balance transaction's description as a shop owner reads it, in the interface's language: the server writes its
// own in English, with the video's id; a video's transactions read as a link to its page, named by product and template.

/**
 * The server's own ledger descriptions (src/billing/top-ups.ts, src/accounts/records.ts) in Turkish; an operator's
 * own text, or one this list does not know, is shown as written.
 */
const trDescriptions: [RegExp, string][] = [
  [/^Opening credits$/, "Açılış kredisi"],
  [/^Top-up of ([\d.]+) ([A-Z]{3})$/, "$1 $2 kredi yüklemesi"],
  [/^Credits granted by an operator$/, "Yöneticinin verdiği kredi"],
  [/^Correction by an operator$/, "Yönetici düzeltmesi"],
];

/** A description's text in the interface's language. */
export function transactionText(description: string, lang: string): string {
  if (lang !== "tr") return description;
  for (const [pattern, text] of trDescriptions) if (pattern.test(description)) return description.replace(pattern, text);
  return description;
}

/** What src/videos writes: a video's cost ("Video of Mug (Clean card, vid_…)") and its refund when it failed. */
const USAGE = /^Video of (.+) \((.+), (vid_\w+)\)$/;
const REFUND = /^Refund for video (vid_\w+) \(\w+\)$/;

/**
 * A template's name as the interface says it, from the English one the server wrote into the description (the
 * templates' `translations`); a template no longer offered keeps the name written.
 */
export type TemplateNamer = (english: string) => string;
const same: TemplateNamer = (name) => name;

const words = {
  en: { usage: ["Video of ", ""], refund: "Refund for a failed video", refundOf: "Refund for a failed video: " },
  tr: { usage: ["", " videosu"], refund: "Başarısız bir video için iade", refundOf: "Başarısız bir video için iade: " },
};

/**
 * A piece of a description as shown: text, or a link to the Studio's page of the video it is about. `hidden` is said
 * to a screen reader after the label only: what tells this link from others that read the same.
 */
export type DescriptionPart = string | { href: string; label: string; hidden?: string };

/**
 * What each video of these descriptions is called, by its id: "Mug (Clean card)", from its cost's description (a
 * refund names only the video's id, and its cost is usually on the same page, just below it).
 */
export function videoLabels(descriptions: string[], templateName: TemplateNamer = same): Map<string, string> {
  const labels = new Map<string, string>();
  for (const description of descriptions) {
    const usage = USAGE.exec(description);
    if (usage) labels.set(usage[3]!, `${usage[1]} (${templateName(usage[2]!)})`);
  }
  return labels;
}

/**
 * A description in parts, in the interface's language: a video's cost and refund link to the video's page, named by
 * its product and template (a refund whose video is not named on the page is one link saying what it is, with the
 * transaction's `date` for a screen reader, so two such refunds in a list of links are told apart); anything else is
 * its text.
 */
export function descriptionParts(description: string, lang: string, labels: Map<string, string>, date = "", templateName: TemplateNamer = same): DescriptionPart[] {
  const w = lang === "tr" ? words.tr : words.en;
  const usage = USAGE.exec(description);
  if (usage) {
    const link = { href: `/videos/${usage[3]}`, label: `${usage[1]} (${templateName(usage[2]!)})` };
    return [w.usage[0]!, link, w.usage[1]!].filter((part) => part !== "");
  }
  const refund = REFUND.exec(description);
  if (refund) {
    const href = `/videos/${refund[1]}`;
    const label = labels.get(refund[1]!);
    if (label) return [w.refundOf, { href, label }];
    return [date ? { href, label: w.refund, hidden: ` (${date})` } : { href, label: w.refund }];
  }
  return [transactionText(description, lang)];
}
