// What a video's downloads are called: its product, template, format and language rather than its id, and the link
// that asks the server for that name too (the `download` attribute alone is ignored for a link to another origin).
// Plain TypeScript, no DOM, so tests run it outside a browser.

/** What no file system takes in a name, control characters, bidi overrides, and what a URL or header reads itself. */
const UNSAFE = /[\u0000-\u001f\u007f<>:"/\\|?*;%#&\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;
/** A product name longer than this is cut, so the name keeps its template, format and language. */
const MAX_PRODUCT = 60;

/** One part of the name: its words joined by "-", unsafe characters left out, no dots or dashes at its ends. */
function part(text: string, max = 40): string {
  const words = text.normalize("NFC").replace(UNSAFE, " ").trim().split(/\s+/).join("-");
  return [...words].slice(0, max).join("").replace(/^[-.]+|[-.]+$/g, "");
}

export type DownloadOf = { id: string; productName: string; templateName: string; aspect: string; language: string };

/**
 * The file name for a video's download with extension `ext` ("mp4", "jpg"): `Product_Template_9x16_en.mp4`, each part
 * safe for Windows, macOS and Linux; the video's id when neither product nor template leaves anything.
 */
export function downloadName(video: DownloadOf, ext: string): string {
  const named = [part(video.productName, MAX_PRODUCT), part(video.templateName)].filter(Boolean);
  if (named.length === 0) return `${video.id}.${ext}`;
  const rest = [part(video.aspect.replace(":", "x")), part(video.language)].filter(Boolean);
  return `${[...named, ...rest].join("_")}.${ext}`;
}

/**
 * The link for a download named `name`: vitrin's own file route names it when asked (`?download=`). A link that
 * already carries a query (a presigned S3 link, whose signature covers it) is left as it is.
 */
export function downloadHref(url: string, name: string): string {
  return url.includes("?") ? url : `${url}?download=${encodeURIComponent(name)}`;
}
