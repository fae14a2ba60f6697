// A balance transaction's description in the interface's language: the server writes its own in English.
/**
 * The server's own ledger descriptions (src/billing/top-ups.ts, src/accounts/records.ts, src/videos) in Turkish; an
 * operator's own text, or one this list does not know, is shown as written.
 */
const trDescriptions: [RegExp, string][] = [
  [/^Opening credits$/, "Açılış kredisi"],
  [/^Top-up of ([\d.]+) ([A-Z]{3})$/, "$1 $2 kredi yüklemesi"],
  [/^Video of (.+) \((.+), (vid_\w+)\)$/, "$1 videosu ($2, $3)"],
  [/^Refund for video (vid_\w+) \((\w+)\)$/, "$1 videosunun iadesi ($2)"],
  [/^Credits granted by an operator$/, "Yöneticinin verdiği kredi"],
  [/^Correction by an operator$/, "Yönetici düzeltmesi"],
];

/** A transaction's description in the interface's language. */
export function transactionText(description: string, lang: string): string {
  if (lang !== "tr") return description;
  for (const [pattern, text] of trDescriptions) if (pattern.test(description)) return description.replace(pattern, text);
  return description;
}
