// Template "spotlight": the cut-out product under a studio light with a slow push-in, its name, price and a call to
// action; tall formats stack the words under the product, square and landscape set them in a column beside it.
import { darken, defineTemplate, fields, firstSentence, inkOn, legible, lighten, mix, t, type Asset, type BuildContext, type Scene } from "../src/templates/api";

type Ctx = BuildContext<unknown>;
type Sized = Asset & { fontSize: number };

/** The studio: a gradient in the shop's background (or a dark tone of the primary), a beam and a spot on (cx, cy). */
function backdrop(ctx: Ctx, top: string, bottom: string, accent: string, cx: number, cy: number, r: number): Promise<Asset> {
  const W = ctx.width;
  const H = ctx.height;
  const beam = mix(accent, "#ffffff", 0.6);
  return ctx.svg(
    `<defs>
      <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="${bottom}"/></linearGradient>
      <radialGradient id="spot" cx="${cx}" cy="${cy}" r="${r * 1.5}" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="${beam}" stop-opacity="0.42"/><stop offset="0.55" stop-color="${beam}" stop-opacity="0.08"/><stop offset="1" stop-color="${beam}" stop-opacity="0"/></radialGradient>
      <linearGradient id="beam" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff" stop-opacity="0.16"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></linearGradient>
      <radialGradient id="floor" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#000" stop-opacity="0.5"/><stop offset="1" stop-color="#000" stop-opacity="0"/></radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <polygon points="${cx - r * 0.35},0 ${cx + r * 0.35},0 ${cx + r},${cy + r} ${cx - r},${cy + r}" fill="url(#beam)"/>
    <rect width="${W}" height="${H}" fill="url(#spot)"/>
    <circle cx="${cx}" cy="${cy}" r="${r}" fill="none" stroke="${accent}" stroke-opacity="0.22" stroke-width="3"/>
    <circle cx="${cx}" cy="${cy}" r="${r * 1.1}" fill="none" stroke="#ffffff" stroke-opacity="0.07" stroke-width="2"/>
    <ellipse cx="${cx}" cy="${cy + r * 0.92}" rx="${r * 0.7}" ry="${r * 0.1}" fill="url(#floor)"/>`,
    W,
    H,
    "background",
    // Gradients, a faint beam and thin faint rings: drawn at half resolution and stretched to the frame, they look the
    // same (no pixel of a frame moves by more than 20 levels of 255) for a quarter of the cost.
    { detail: 0.5 },
  );
}

type PillOptions = { name: string; text: string; size: number; color: string; background: string; maxWidth: number; padX?: number; padY?: number; uppercase?: boolean; letterSpacing?: number; shadow?: boolean };

/** A rounded button whose picture reports its label's size (for layout checks), with a soft shadow under it. */
async function pill(ctx: Ctx, o: PillOptions): Promise<Sized> {
  const padX = o.padX ?? o.size * 1.4;
  const padY = o.padY ?? o.size * 0.5;
  const m = o.shadow === false ? 0 : 16;
  const label = await ctx.text({
    text: o.text, size: o.size, minSize: 36, weight: 700, maxWidth: o.maxWidth - 2 * padX - 2 * m, maxLines: 2, lineHeight: 1.05, color: o.color, align: "center",
    uppercase: o.uppercase, letterSpacing: o.letterSpacing,
  });
  const bw = label.w + 2 * padX;
  const bh = Math.max(label.h, label.fontSize * 1.15) + 2 * padY;
  const radius = Math.min(bh / 2, label.fontSize * 1.2);
  const group = await ctx.group({
    name: o.name, w: bw + 2 * m, h: bh + 2 * m,
    shadow: m ? { x: m, y: m, w: bw, h: bh, radius, blur: 9, dy: 7, opacity: 0.35 } : undefined,
    svg: `<rect x="${m}" y="${m}" width="${bw}" height="${bh}" rx="${radius}" fill="${o.background}"/>`,
    items: [{ image: label, x: m + bw / 2, y: m + bh / 2 }],
  });
  return { ...group, fontSize: label.fontSize };
}

/** The round price sticker (a short word such as "now" over the amount), `d` template pixels across. */
async function sticker(ctx: Ctx, amount: string, accent: string, d: number): Promise<Sized> {
  const on = inkOn(accent);
  const [label, value] = await Promise.all([
    ctx.text({ text: ctx.s("sticker"), size: 38, minSize: 36, weight: 600, maxWidth: d * 0.62, color: on, uppercase: true, letterSpacing: 0.1, align: "center" }),
    ctx.text({ text: amount, font: "display", weight: 800, size: d * 0.21, minSize: 36, maxWidth: d * 0.78, color: on, align: "center" }),
  ]);
  const c = d / 2;
  const r = d * 0.44;
  const group = await ctx.group({
    name: "price", w: d, h: d,
    shadow: { x: c - r, y: c - r, w: 2 * r, h: 2 * r, radius: r, blur: 9, dy: 7, opacity: 0.35 },
    svg: `<circle cx="${c}" cy="${c}" r="${r}" fill="${accent}"/>
      <circle cx="${c}" cy="${c}" r="${r - 16}" fill="none" stroke="${on}" stroke-opacity="0.35" stroke-width="2" stroke-dasharray="6 6"/>`,
    items: [
      { image: label, x: c, y: c - value.h / 2 - 2 },
      { image: value, x: c, y: c + label.h / 2 + 2 },
    ],
  });
  return { ...group, fontSize: Math.min(label.fontSize, value.fontSize) };
}

/** Sizes per format: tall ones stack the words under the product, square and landscape put them beside it. */
function sizes(ctx: Ctx) {
  const S = ctx.safe;
  if (ctx.aspect === "16:9") return { side: true, price: "beside" as const, column: 900, head: 88, sub: 42, cta: 44, sticker: 250, top: S.y };
  // The square's sticker is as wide as the landscape's: its word ("AHORA") needs 145 px at the body floor.
  if (ctx.aspect === "1:1") return { side: true, price: "above" as const, column: 610, head: 76, sub: 37, cta: 38, sticker: 250, top: S.y };
  if (ctx.aspect === "4:5") return { side: false, price: "beside" as const, column: S.w, head: 84, sub: 40, cta: 44, sticker: 260, top: S.y };
  // 9:16: the product may rise into the top strip the apps cover; words stay inside the safe area.
  return { side: false, price: "beside" as const, column: S.w, head: 92, sub: 44, cta: 46, sticker: 300, top: 140 };
}

export default defineTemplate({
  meta: {
    id: "spotlight",
    name: "Spotlight",
    description: "The product alone under a studio light: a slow push-in, its name, price and a call to action.",
    translations: {
      tr: { name: "Spot ışığı", description: "Stüdyo ışığı altında tek başına ürün: yavaş bir yakınlaşma, adı, fiyatı ve harekete geçirici bir mesaj." },
      de: { name: "Rampenlicht", description: "Das Produkt allein im Studiolicht: eine langsame Kamerafahrt, sein Name, Preis und eine Handlungsaufforderung." },
      fr: { name: "Sous les projecteurs", description: "Le produit seul sous une lumière de studio\u00a0: un lent travelling avant, son nom, son prix et un appel à l'action." },
      es: { name: "Bajo el foco", description: "El producto a solas bajo una luz de estudio: un lento acercamiento, su nombre, su precio y una llamada a la acción." },
      ar: { name: "تحت الأضواء", description: "المنتج وحده تحت إضاءة الاستوديو: اقتراب بطيء، واسمه وسعره ودعوة إلى الشراء." },
      ja: { name: "スポットライト", description: "スタジオライトの下に商品だけ。ゆっくりとしたズームイン、商品名、価格、購入ボタン。" },
    },
    aspect: "9:16",
    duration: 8,
    credits: 1,
    posterAt: 6,
  },
  prompt: t.Object({
    // 50, not 60: the longest headlines of every language still fit the square format's column above the size floor.
    headline: fields.headline(50),
    subheadline: fields.subheadline(),
    price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    colors: fields.colors(),
  }),
  // The sticker's word: short in every language, as it must fit the sticker in one line ("Maintenant" does not).
  strings: {
    en: { sticker: "Now" },
    tr: { sticker: "Şimdi" },
    de: { sticker: "Jetzt" },
    fr: { sticker: "Prix" },
    es: { sticker: "Ahora" },
    ar: { sticker: "الآن" },
    ja: { sticker: "今なら" },
  },
  async build(ctx) {
    const p = ctx.prompt;
    const S = ctx.safe;
    const z = sizes(ctx);
    const primary = p.colors?.primary ?? "#16233f";
    const accent = p.colors?.accent ?? "#ffb547";
    // The shop's own background lights the studio gently; without one, a deep tone of the primary colour.
    const bg = p.colors?.background;
    const top = bg ? lighten(bg, 0.1) : lighten(primary, 0.12);
    const bottom = bg ? darken(bg, 0.3) : darken(primary, 0.6);
    // The words sit low in tall formats and mid-height beside the product: read against the gradient there.
    const behind = mix(top, bottom, z.side ? 0.5 : 0.72);
    const ink = p.colors?.text ?? inkOn(behind);
    const soft = legible(mix(ink, behind, 0.2), behind);

    // Pango may draw a line a pixel or two wider than asked: keep that inside the column.
    const textW = z.column - 8;
    const sub = p.subheadline ?? firstSentence(ctx.product.description, 80);
    const [chipImg, priceImg, ctaImg] = await Promise.all([
      pill(ctx, {
        name: "chip", text: ctx.s("new"), size: 38, color: inkOn(accent), background: accent,
        maxWidth: 420, padX: 30, padY: 10, uppercase: true, letterSpacing: 0.12, shadow: false,
      }),
      p.price !== undefined ? sticker(ctx, ctx.price(p.price), accent, z.sticker) : null,
      pill(ctx, { name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: z.cta, color: legible(primary, "#ffffff"), background: "#ffffff", maxWidth: Math.min(textW, 780) }),
    ]);
    // The words may take the column's height beside the product, or three fifths of it above the words in tall
    // formats; long copy that would take more is set smaller (never under the floors).
    const room = (z.side ? S.h : S.h * 0.62) - chipImg.h - ctaImg.h - 60;
    let k = 1;
    let words: [Sized, Sized | null];
    for (;;) {
      words = await Promise.all([
        ctx.text({
          name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: z.head * k, minSize: 64,
          maxWidth: textW, maxLines: ctx.aspect === "1:1" ? 5 : 4, align: "center", color: ink, lineHeight: 0.95,
        }),
        sub ? ctx.text({ name: "subheadline", text: sub, size: Math.max(37, z.sub * k), minSize: 36, maxWidth: textW, maxLines: 5, align: "center", color: soft }) : null,
      ]);
      if (words[0].h + (words[1]?.h ?? 0) <= room || z.head * k * 0.9 < 66) break;
      k *= 0.9;
    }
    const [head, subImg] = words;
    return compose(ctx, z, { top, bottom, accent }, { chipImg, head, subImg, priceImg, ctaImg });
  },
});

type Parts = { chipImg: Sized; head: Sized; subImg: Sized | null; priceImg: Sized | null; ctaImg: Sized };

/** Places the words (measured) and then fits the product into the room they leave. */
async function compose(ctx: Ctx, z: ReturnType<typeof sizes>, c: { top: string; bottom: string; accent: string }, parts: Parts): Promise<Scene> {
  const { chipImg, head, subImg, priceImg, ctaImg } = parts;
  const S = ctx.safe;
  // The price sticker goes beside the product, or above it in the square format's narrow product column.
  const heights = [chipImg.h, head.h, subImg?.h ?? 0, ctaImg.h];
  // Gaps close up when long copy fills the column.
  const gap = Math.max(12, Math.min(28, (S.h - heights.reduce((a, b) => a + b, 0) - 8) / (subImg ? 3 : 2)));
  // Tall formats: chip, headline, subheadline and button stacked at the bottom of the safe area; beside the product
  // they are centred in the column's height.
  const row = heights[0]!;
  const height = heights.reduce((a, b) => a + b, 0) + gap * (subImg ? 3 : 2) + 8;
  const colX = z.side ? S.x + S.w - z.column / 2 : S.x + S.w / 2;
  let y = z.side ? S.y + (S.h - height) / 2 : S.y + S.h - height;
  const textTop = y;
  const rowY = y + row / 2;
  y += row + gap;
  const headY = y + head.h / 2;
  y += head.h + gap;
  const subY = subImg ? y + subImg.h / 2 : 0;
  if (subImg) y += subImg.h + gap;
  const ctaY = y + 8 + ctaImg.h / 2;

  // The product's room: left of the column, or above the words; the sticker takes its share of it.
  // The drift keeps the product moving about 13 template px a second to the end (freezedetect finds no still second).
  const rise = 55;
  const above = z.price === "above" && priceImg ? priceImg.h + 10 : 0;
  const area = z.side
    ? { x: S.x, y: S.y + above, w: S.w - z.column - 40, h: S.h - above }
    : { x: S.x, y: z.top, w: S.w, h: textTop - 24 - z.top };
  const beside = z.price === "beside" && priceImg ? priceImg.w + 10 : 0;
  const prod = await ctx.productImage({ maxWidth: area.w - beside, maxHeight: area.h - 2 * rise, shadow: { opacity: 0.5, blur: 0.03, offsetY: 0.025 } });
  const px = area.x + (area.w - prod.content.w - beside) / 2 + prod.content.w / 2;
  const py = area.y + area.h / 2;
  const half = (priceImg?.h ?? 0) / 2;
  const priceX = above ? px + prod.content.w * 0.25 : px + prod.content.w / 2 + beside / 2;
  const priceY = above ? S.y + half : Math.max(S.y + half + 10, py - prod.content.h / 2 + half);
  const r = Math.max(prod.content.w, prod.content.h) * 0.62;

  return {
    background: await backdrop(ctx, c.top, c.bottom, c.accent, px, py, r),
    layers: [
      {
        name: "product", image: prod, x: px,
        // A push-in while the words arrive, then a slow drift up (a video that stands still reads as a slide),
        // seen from the first frame.
        y: [[0, py + rise], [1.2, py + rise * 0.6, "out"], [8, py - rise, "linear"]],
        scale: [[0, 0.88], [1.4, 1, "out"]],
      },
      { name: "chip", image: chipImg, x: colX, y: rowY, scale: [[0.5, 0.6], [1.0, 1, "out"]], opacity: [[0.5, 0], [0.8, 1]] },
      { name: "headline", image: head, x: colX, y: [[1.0, headY + gap / 2], [1.5, headY, "out"]], opacity: [[1.0, 0], [1.3, 1]] },
      subImg && { name: "subheadline", image: subImg, x: colX, y: [[1.5, subY + gap / 2], [2.0, subY, "out"]], opacity: [[1.5, 0], [1.8, 1]] },
      priceImg && { name: "price", image: priceImg, x: priceX, y: priceY, scale: [[2.0, 0.4], [2.5, 1, "out"]], rotate: [[2.0, -30], [2.5, -8, "out"]], opacity: [[2.0, 0], [2.2, 1]] },
      {
        name: "cta", image: ctaImg, x: colX, y: ctaY,
        // Two soft presses draw the eye to the button (short, so the frames between them cost nothing).
        scale: [[3.0, 0.7], [3.5, 1, "out"], [4.5, 1], [4.7, 0.94], [5.0, 1, "out"], [6.0, 1], [6.2, 0.94], [6.5, 1, "out"]],
        opacity: [[3.0, 0], [3.3, 1]],
      },
    ],
  };
}
