// The bundled sample product (a drawn serum bottle, made at run time: no stock image ships) for previews and benches.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { baseLanguage } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";

const BOTTLE = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="1000" viewBox="0 0 640 1000">
<defs>
  <linearGradient id="glass" x1="0" x2="1" y1="0" y2="0">
    <stop offset="0" stop-color="#7a3c0c"/><stop offset="0.18" stop-color="#c77a2c"/><stop offset="0.45" stop-color="#e0a050"/>
    <stop offset="0.75" stop-color="#b0651f"/><stop offset="1" stop-color="#5e2d08"/>
  </linearGradient>
  <linearGradient id="liquid" x1="0" x2="0" y1="0" y2="1">
    <stop offset="0" stop-color="#f3b24a" stop-opacity="0.0"/><stop offset="0.12" stop-color="#f3b24a" stop-opacity="0.35"/><stop offset="1" stop-color="#8d4a10" stop-opacity="0.55"/>
  </linearGradient>
  <linearGradient id="cap" x1="0" x2="1" y1="0" y2="0">
    <stop offset="0" stop-color="#111"/><stop offset="0.3" stop-color="#3a3a3a"/><stop offset="0.5" stop-color="#4a4a4a"/><stop offset="1" stop-color="#0b0b0b"/>
  </linearGradient>
  <linearGradient id="collar" x1="0" x2="1" y1="0" y2="0">
    <stop offset="0" stop-color="#8c6b2f"/><stop offset="0.35" stop-color="#f1d488"/><stop offset="0.55" stop-color="#fff1c2"/><stop offset="1" stop-color="#6d5022"/>
  </linearGradient>
  <linearGradient id="label" x1="0" x2="1" y1="0" y2="0">
    <stop offset="0" stop-color="#e9dfcf"/><stop offset="0.4" stop-color="#fbf6ee"/><stop offset="1" stop-color="#d9ccb6"/>
  </linearGradient>
</defs>
<path d="M250 40 C250 5 390 5 390 40 L398 210 L242 210 Z" fill="url(#cap)"/>
<rect x="222" y="200" width="196" height="110" rx="14" fill="url(#collar)"/>
<g stroke="#6d5022" stroke-opacity="0.35" stroke-width="3">${Array.from({ length: 9 }, (_, i) => `<line x1="${236 + i * 21}" y1="212" x2="${236 + i * 21}" y2="298"/>`).join("")}</g>
<rect x="250" y="302" width="140" height="40" fill="#5b2c08"/>
<rect x="90" y="330" width="460" height="640" rx="70" fill="url(#glass)"/>
<rect x="100" y="420" width="440" height="540" rx="62" fill="url(#liquid)"/>
<rect x="128" y="360" width="34" height="560" rx="17" fill="#fff" opacity="0.28"/>
<rect x="480" y="380" width="16" height="520" rx="8" fill="#fff" opacity="0.12"/>
<rect x="90" y="560" width="460" height="250" fill="url(#label)"/>
<rect x="150" y="610" width="340" height="16" rx="8" fill="#2b2118"/>
<rect x="190" y="646" width="260" height="10" rx="5" fill="#8c6b2f"/>
<rect x="170" y="690" width="300" height="56" rx="6" fill="none" stroke="#2b2118" stroke-width="4"/>
<rect x="200" y="711" width="240" height="14" rx="7" fill="#2b2118" opacity="0.8"/>
<rect x="230" y="770" width="180" height="8" rx="4" fill="#8c6b2f"/>
</svg>`;

const NAMES: Record<string, { name: string; description: string }> = {
  en: { name: "Glow Serum", description: "Vitamin C brightening serum. Lightweight texture, absorbs in seconds. Dermatologist tested. 30 ml glass bottle." },
  tr: { name: "Işıltı Serumu", description: "C vitaminli aydınlatıcı serum. Hafif doku, saniyeler içinde emilir. Dermatolojik olarak test edildi. 30 ml cam şişe." },
  de: { name: "Glow-Serum", description: "Aufhellendes Vitamin-C-Serum. Leichte Textur, zieht sofort ein. Dermatologisch getestet. 30-ml-Glasflasche." },
  fr: { name: "Sérum Éclat", description: "Sérum illuminateur à la vitamine C. Texture légère, absorbée en quelques secondes. Testé dermatologiquement. Flacon en verre de 30 ml." },
  es: { name: "Sérum Luminoso", description: "Sérum iluminador con vitamina C. Textura ligera, se absorbe en segundos. Testado dermatológicamente. Frasco de vidrio de 30 ml." },
  ar: { name: "سيروم الإشراق", description: "سيروم فيتامين سي للتفتيح. قوام خفيف يمتص في ثوانٍ. مختبر من أطباء الجلد. عبوة زجاجية 30 مل." },
  ja: { name: "グロウセラム", description: "ビタミンC配合の美容液。軽いテクスチャーで、すぐになじみます。皮膚科医テスト済み。30mlガラスボトル。" },
};

export type SampleProduct = { id: string; name: string; description: string; imagePath: string; maskPath: string; cutout: true };

/** Writes the sample cut-out and its mask into `dir` and describes it in the language (English otherwise). */
export async function writeSampleProduct(dir: string, language = "en"): Promise<SampleProduct> {
  await mkdir(dir, { recursive: true });
  const imagePath = join(dir, "sample-cutout.png");
  const maskPath = join(dir, "sample-mask.png");
  const png = await sharp(Buffer.from(BOTTLE)).png().toBuffer();
  await writeFile(imagePath, png);
  await sharp(png).extractChannel(3).threshold(8).png().toFile(maskPath);
  const text = NAMES[baseLanguage(language)] ?? NAMES.en!;
  return { id: "prod_sample", ...text, imagePath, maskPath, cutout: true };
}

/** Sample prices per language, so previews show a believable price in the right currency. */
export function samplePrompt(language = "en"): Record<string, unknown> {
  const l = baseLanguage(language);
  const prices: Record<string, [number, number]> = { tr: [749, 999], ja: [3980, 5480], ar: [129, 179] };
  const [price, old] = prices[l] ?? [34.9, 49.9];
  return { price, old_price: old };
}

/** Long copy per language: each text field of a prompt filled close to its limit, for layout checks and contact sheets. */
const LONG: Record<string, { headline: string; subheadline: string; cta: string; features: string[] }> = {
  en: {
    headline: "Vitamin C brightening serum for visibly radiant skin every single day",
    subheadline: "A lightweight daily serum that absorbs in seconds and leaves skin soft, even and glowing from morning to night",
    cta: "Order yours today with free shipping",
    features: ["Absorbs in seconds with no sticky feeling", "Dermatologist tested on sensitive skin", "Fifteen percent pure vitamin C inside", "Recyclable thirty millilitre glass bottle"],
  },
  tr: {
    headline: "Her gün gözle görülür şekilde ışıldayan bir cilt için C vitaminli serum",
    subheadline: "Saniyeler içinde emilen, cildi sabahtan akşama kadar yumuşak, eşit tonlu ve ışıltılı bırakan hafif bir serum",
    cta: "Hemen sipariş verin, kargo bizden",
    features: ["Yapışkanlık bırakmadan saniyeler içinde emilir", "Hassas ciltlerde dermatolojik olarak test edildi", "İçinde yüzde on beş saf C vitamini var", "Geri dönüştürülebilir otuz mililitre cam şişe"],
  },
  ar: {
    headline: "سيروم فيتامين سي لبشرة مشرقة ونضرة بشكل واضح كل يوم من أيام الأسبوع",
    subheadline: "سيروم يومي خفيف يمتص في ثوانٍ ويترك البشرة ناعمة ومتوحدة اللون ومشرقة من الصباح حتى المساء",
    cta: "اطلبه اليوم مع شحن مجاني",
    features: ["يمتص في ثوانٍ دون أي إحساس لزج", "مختبر من أطباء الجلد على البشرة الحساسة", "يحتوي على خمسة عشر بالمئة فيتامين سي", "عبوة زجاجية قابلة لإعادة التدوير"],
  },
  ja: {
    headline: "毎日のお手入れで明るく輝く肌へ導くビタミンC配合の高濃度美容液が新登場しました",
    subheadline: "数秒でなじむ軽いテクスチャーで、朝から夜までなめらかで均一な明るい肌を保ちます。敏感肌の方にもおすすめです",
    cta: "今すぐ注文して送料無料でお届け",
    features: ["べたつかずに数秒でなじみます", "敏感肌で皮膚科医テスト済みです", "純粋なビタミンCを十五パーセント配合", "リサイクルできる三十ミリリットルのガラス瓶"],
  },
};

/** `text` cut to at most `max` characters, at a word boundary where the language has spaces. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const space = head.lastIndexOf(" ");
  return (space > max * 0.6 ? head.slice(0, space) : head).trim();
}

type FieldSchema = { maxLength?: number; maxItems?: number; items?: { maxLength?: number }; anyOf?: unknown[] };

/**
 * A prompt for a template's schema (its JSON Schema `properties`) with short copy (the sample prices only: every text
 * defaults from the product) or long copy (every text field near its limit in the language).
 */
export function sampleCopy(properties: Record<string, FieldSchema>, language = "en", length: "short" | "long" = "short"): Record<string, unknown> {
  const prompt = samplePrompt(language);
  for (const key of Object.keys(prompt)) if (!(key in properties)) delete prompt[key];
  if (length === "short") return prompt;
  const words = LONG[baseLanguage(language)] ?? LONG.en!;
  const text: Record<string, string> = { headline: words.headline, subheadline: words.subheadline, call_to_action: words.cta };
  for (const [key, schema] of Object.entries(properties)) {
    if (key in text) prompt[key] = cut(text[key]!, schema.maxLength ?? 60);
    if (key === "features") {
      const n = schema.maxItems ?? 3;
      prompt[key] = words.features.slice(0, n).map((f) => cut(f, schema.items?.maxLength ?? 48));
    }
  }
  return prompt;
}
