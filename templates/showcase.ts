// Template "showcase": the product slides and spins in on a bold backdrop, shows its selling points, and ends on a
// call-to-action card with the price; tall formats put the words under the product, square and landscape beside it.
import { contrastRatio, darken, defineTemplate, fields, inkOn, legible, lighten, mix, phrasesFrom, t, type Asset, type BuildContext, type Scene } from "../src/templates/api";

type Ctx = BuildContext<unknown>;
type Sized = Asset & { fontSize: number };

/** The backdrop: a diagonal gradient of the base colour, bands and rings, a halo where the product lands. */
function backdrop(ctx: Ctx, base: string, accent: string, px: number, py: number): Promise<Asset> {
  const W = ctx.width;
  const H = ctx.height;
  return ctx.svg(
    `<defs>
      <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${lighten(base, 0.18)}"/><stop offset="1" stop-color="${darken(base, 0.25)}"/></linearGradient>
      <radialGradient id="halo" cx="${px}" cy="${py}" r="560" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffffff" stop-opacity="0.35"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <polygon points="0,${H * 0.62} ${W},${H * 0.4} ${W},${H * 0.58} 0,${H * 0.8}" fill="${accent}" opacity="0.16"/>
    <polygon points="0,${H * 0.16} ${W},0 ${W},${H * 0.05} 0,${H * 0.2}" fill="#ffffff" opacity="0.10"/>
    <rect width="${W}" height="${H}" fill="url(#halo)"/>
    <circle cx="${W - 150}" cy="${H * 0.16}" r="150" fill="none" stroke="#ffffff" stroke-opacity="0.25" stroke-width="28"/>
    ${Array.from({ length: 5 }, (_, r) => Array.from({ length: 5 }, (_, c) => `<circle cx="${70 + c * 34}" cy="${H * 0.12 + r * 34}" r="5" fill="#ffffff" opacity="0.35"/>`).join("")).join("")}`,
    W,
    H,
    "background",
    // Gradients, faint bands, rings and dots: drawn at half resolution and stretched to the frame, they look the same
    // (no pixel of a frame moves by more than 19 levels of 255) for a quarter of the cost.
    { detail: 0.5 },
  );
}

type PillOptions = { name: string; text: string; size: number; color: string; background: string; maxWidth: number; padX: number; padY: number; shadow?: boolean };

/** A chip or button whose picture reports its label's size (for layout checks). */
async function pill(ctx: Ctx, o: PillOptions): Promise<Sized> {
  const m = o.shadow ? 10 : 0;
  const label = await ctx.text({
    text: o.text, size: o.size, minSize: 36, weight: 600, maxWidth: o.maxWidth - 2 * o.padX - 2 * m, maxLines: 2, lineHeight: 1.05, color: o.color, align: "center",
  });
  const bw = label.w + 2 * o.padX;
  const bh = Math.max(label.h, label.fontSize * 1.15) + 2 * o.padY;
  const radius = Math.min(bh / 2, label.fontSize * 1.2);
  const group = await ctx.group({
    name: o.name, w: bw + 2 * m, h: bh + 2 * m,
    shadow: m ? { x: m, y: m, w: bw, h: bh, radius, blur: 9, dy: 7, opacity: 0.3 } : undefined,
    svg: `<rect x="${m}" y="${m}" width="${bw}" height="${bh}" rx="${radius}" fill="${o.background}"/>`,
    items: [{ image: label, x: m + bw / 2, y: m + bh / 2 }],
  });
  return { ...group, fontSize: label.fontSize };
}

/** Sizes per format: tall ones put the words under the product, square and landscape in a column beside it. */
function sizes(ctx: Ctx) {
  const S = ctx.safe;
  if (ctx.aspect === "16:9") return { side: true, column: 880, head: 96, chip: 38, name: 56, price: 96, top: S.y };
  if (ctx.aspect === "1:1") return { side: true, column: 640, head: 72, chip: 38, name: 50, price: 84, top: S.y };
  if (ctx.aspect === "4:5") return { side: false, column: S.w, head: 92, chip: 38, name: 54, price: 90, top: S.y };
  // 9:16: the product may rise into the top strip the apps cover; words stay inside the safe area.
  return { side: false, column: S.w, head: 104, chip: 40, name: 58, price: 96, top: 150 };
}

/** A word on the closing card: its picture and where its centre sits on the card (card pixels, left to right). */
type CardItem = { name: string; image: Sized; x: number; y: number };
type Card = { panel: Asset; items: CardItem[] };

/** The closing card: a white panel with the name, price (and the old one, struck) and the button, each its own layer. */
async function card(ctx: Ctx, z: ReturnType<typeof sizes>, c: { primary: string; accent: string }, copy: { name: string; price?: string; old?: string; cta: string }): Promise<Card> {
  const cardW = z.column;
  const inner = cardW - 80;
  const priceColor = contrastRatio(c.primary, "#ffffff") >= 3.4 ? c.primary : darken(c.primary, 0.3);
  const [name, price, old, button] = await Promise.all([
    ctx.text({ name: "card-name", text: copy.name, font: "display", weight: 800, size: z.name, minSize: 40, maxWidth: inner, maxLines: 4, color: legible(c.accent, "#ffffff"), align: "center" }),
    copy.price ? ctx.text({ name: "price", text: copy.price, font: "display", weight: 900, size: z.price, minSize: 64, maxWidth: inner * 0.6, color: legible(priceColor, "#ffffff", 3.4), align: "center" }) : null,
    copy.old ? ctx.text({ name: "old_price", text: copy.old, size: 44, minSize: 38, weight: 600, maxWidth: inner * 0.36, color: legible(mix(c.accent, "#ffffff", 0.4), "#ffffff", 5), strike: true, align: "center" }) : null,
    pill(ctx, { name: "cta", text: copy.cta, size: 44, color: inkOn(c.accent), background: c.accent, maxWidth: inner, padX: 44, padY: 20 }),
  ]);
  const gap = 24;
  let y = 44;
  const items: CardItem[] = [];
  items.push({ name: "card-name", image: name, x: cardW / 2, y: y + name.h / 2 });
  y += name.h + gap;
  if (price && old) {
    // Old and new price side by side, the old one first in reading order.
    const total = old.w + 36 + price.w;
    items.push({ name: "old_price", image: old, x: cardW / 2 - total / 2 + old.w / 2, y: y + price.h / 2 + 6 });
    items.push({ name: "price", image: price, x: cardW / 2 + total / 2 - price.w / 2, y: y + price.h / 2 });
    y += price.h + gap;
  } else if (price) {
    items.push({ name: "price", image: price, x: cardW / 2, y: y + price.h / 2 });
    y += price.h + gap;
  }
  items.push({ name: "cta", image: button, x: cardW / 2, y: y + button.h / 2 });
  y += button.h + 36;
  const panel = await ctx.group({
    name: "card-panel", w: cardW, h: y + 30,
    shadow: { x: 14, y: 14, w: cardW - 28, h: y - 10, radius: 44, blur: 16, dy: 12, opacity: 0.28 },
    svg: `<rect x="10" y="6" width="${cardW - 20}" height="${y}" rx="44" fill="#ffffff"/>`,
    items: [],
  });
  return { panel, items };
}

export default defineTemplate({
  meta: {
    id: "showcase",
    name: "Showcase",
    description: "The product slides and spins in on a bold backdrop, shows up to three selling points and ends on a call-to-action card.",
    translations: {
      tr: { name: "Vitrin", description: "Ürün canlı bir arka planda kayarak ve dönerek gelir, en fazla üç öne çıkan özellik gösterir ve harekete geçirici mesaj kartıyla biter." },
      de: { name: "Schaufenster", description: "Das Produkt gleitet und dreht sich vor einen kräftigen Hintergrund, zeigt bis zu drei Verkaufsargumente und endet mit einer Call-to-Action-Karte." },
      fr: { name: "Vitrine", description: "Le produit glisse et pivote sur un fond vif\u00a0; la vidéo présente jusqu'à trois atouts et se termine sur un appel à l'action." },
      es: { name: "Vitrina", description: "El producto entra deslizándose y girando sobre un fondo llamativo, muestra hasta tres ventajas y termina con una tarjeta de llamada a la acción." },
      ar: { name: "واجهة العرض", description: "المنتج ينزلق ويدور على خلفية لافتة، ويعرض حتى ثلاث مزايا، وينتهي ببطاقة دعوة إلى الشراء." },
      ja: { name: "ショーケース", description: "大胆な背景に商品がスライドと回転で登場し、最大3つの特長を見せ、購入ボタンのカードで締めくくります。" },
    },
    aspect: "9:16",
    duration: 10,
    credits: 2,
    posterAt: 8.5,
  },
  prompt: t.Object({
    headline: fields.headline(40),
    price: fields.price(),
    old_price: fields.oldPrice(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    features: fields.features(3),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const z = sizes(ctx);
    const primary = p.colors?.primary ?? "#ff5a36";
    const accent = p.colors?.accent ?? "#1b1b3a";
    // The shop's own background takes the backdrop; without one, the primary colour does.
    const base = p.colors?.background ?? primary;
    const ink = p.colors?.text ?? inkOn(base);
    const textW = z.column - 8;
    const name = p.headline ?? ctx.product.name;
    const features = (p.features ?? phrasesFrom(ctx.product.description, 3, 34)).slice(0, 3);
    const headline = (k: number) =>
      ctx.text({ name: "headline", text: name, font: "display", weight: 900, size: z.head * k, minSize: 64, maxWidth: textW - 40, maxLines: 5, color: ink, lineHeight: 0.92, align: "start" });
    const [brow, first, chips, cardImg] = await Promise.all([
      ctx.text({ name: "eyebrow", text: ctx.s("newArrival"), size: 40, minSize: 38, weight: 700, maxWidth: textW - 30, color: ink, uppercase: true, letterSpacing: 0.18, align: "start" }),
      headline(1),
      Promise.all(features.map((f, i) => pill(ctx, { name: `feature-${i}`, text: f, size: z.chip, color: legible(accent, "#ffffff"), background: "#ffffff", maxWidth: textW, padX: 28, padY: 10, shadow: true }))),
      card(ctx, z, { primary, accent }, {
        name, cta: p.call_to_action ?? ctx.s("shopNow"),
        price: p.price !== undefined ? ctx.price(p.price) : undefined,
        old: p.old_price !== undefined && p.price !== undefined ? ctx.price(p.old_price) : undefined,
      }),
    ]);
    // Beside the product the words share the column's height; in tall formats they take at most three fifths of it.
    // A long headline that would take more is set smaller (never under the floor).
    const room = (z.side ? ctx.safe.h : ctx.safe.h * 0.6) - brow.h - chips.reduce((a, c) => a + c.h + 6, 0) - 60;
    let head = first;
    for (let k = 0.88; head.h > room && z.head * k > 56; k *= 0.88) head = await headline(Math.max(65 / z.head, k));
    return compose(ctx, z, { base, accent }, { brow, head, chips, cardImg });
  },
});

type Parts = { brow: Sized; head: Sized; chips: Sized[]; cardImg: Card };

/** Places the words (measured), then the product in the room they leave, before and after the card comes up. */
async function compose(ctx: Ctx, z: ReturnType<typeof sizes>, c: { base: string; accent: string }, parts: Parts): Promise<Scene> {
  const { brow, head, chips, cardImg } = parts;
  const S = ctx.safe;
  const heights = [brow.h, head.h, ...chips.map((h) => h.h)];
  const gaps = [16, 40, ...chips.map(() => 6)].slice(0, heights.length - 1);
  const height = heights.reduce((a, b) => a + b, 0) + gaps.reduce((a, b) => a + b, 0);
  const colX = S.x;
  let y = z.side ? S.y + (S.h - height) / 2 : S.y + S.h - height;
  const wordsTop = y;
  const at = heights.map((h, i) => {
    const mid = y + h / 2;
    y += h + (gaps[i] ?? 0);
    return mid;
  });
  const cardX = S.x + z.column / 2;
  const panel = cardImg.panel;
  const cardY = z.side ? S.y + S.h / 2 : S.y + S.h - panel.h / 2;

  // The product: right of the column, or above the words; the drift keeps it moving about 12 px a second.
  const drift = 55;
  const area = z.side
    ? { x: S.x + z.column + 40, y: S.y + drift, w: S.w - z.column - 40, h: S.h - 2 * drift }
    : { x: S.x, y: z.top + drift, w: S.w, h: wordsTop - 40 - z.top - 2 * drift };
  const px = area.x + area.w / 2;
  const py = area.y + area.h / 2;
  // The backdrop needs only where the product will sit, not its picture: both are drawn at once.
  const [prod, background] = await Promise.all([
    ctx.productImage({ maxWidth: area.w * 0.9, maxHeight: area.h, shadow: { opacity: 0.45, blur: 0.03, offsetY: 0.03 } }),
    backdrop(ctx, c.base, c.accent, px, py),
  ]);
  // Once the card is up (tall formats), the product rests above it, smaller.
  const band = cardY - panel.h / 2 - 40 - z.top;
  const rest = z.side ? 1 : Math.min(1, (band - drift) / prod.content.h);
  const restY = z.side ? py - drift : z.top + band / 2;
  const swing = Math.min(320, ctx.width - px);

  return {
    background,
    layers: [
      {
        name: "product", image: prod,
        // Swings in from the right edge (seen from the first frame), then drifts slowly: never still.
        x: [[0, px + swing], [1.0, px, "out"]],
        y: [[0, py + drift], [1.0, py + drift / 2, "out"], [5.6, py - drift / 2, "linear"], [6.4, restY + drift / 2, "inOut"], [10, restY - drift / 2, "linear"]],
        rotate: [[0, 38], [1.0, 0, "out"]],
        scale: [[5.6, 1], [6.4, rest, "inOut"]],
      },
      { name: "eyebrow", image: brow, x: [[1.0, colX + 30], [1.5, colX, "out"]], y: at[0]!, anchor: [0, 0.5], opacity: [[1.0, 0], [1.3, 1], [5.3, 1], [5.6, 0]] },
      { name: "headline", image: head, x: [[1.5, colX + 40], [2.0, colX, "out"]], y: at[1]!, anchor: [0, 0.5], opacity: [[1.5, 0], [1.8, 1], [5.3, 1], [5.6, 0]] },
      ...chips.map((chip, i) => ({
        name: `feature-${i}`,
        image: chip,
        x: colX,
        y: at[2 + i]!,
        anchor: [0, 0.5] as [number, number],
        scale: [[2.5 + i * 0.5, 0.6], [3.0 + i * 0.5, 1, "out"]] as [number, number, "out"][],
        opacity: [[2.5 + i * 0.5, 0], [2.7 + i * 0.5, 1], [5.3, 1], [5.6, 0]] as [number, number][],
      })),
      // The card comes up as the first words leave (a longer pause read as an empty frame), while the product rises.
      { name: "card-panel", image: panel, x: cardX, y: cardY, scale: [[5.9, 0.85], [6.4, 1, "out"]], opacity: [[5.9, 0], [6.2, 1]] },
      // The card's words arrive as it settles, one beat after another: it is never an empty card for long.
      ...cardImg.items.map((item, i) => ({
        name: item.name, image: item.image, x: cardX - panel.w / 2 + item.x, y: cardY - panel.h / 2 + item.y,
        opacity: [[6.3 + 0.4 * Math.min(i, 2), 0], [6.6 + 0.4 * Math.min(i, 2), 1]] as [number, number][],
      })),
    ],
  };
}
