// Template "flash-sale": a loud sale card: the product drops in, a discount burst, the old price struck through, the
// new one punched in, and a ticker of "limited offer" running along the bottom; square and landscape set the words in
// a column beside the product, tall formats under it.
import { darken, defineTemplate, fields, inkOn, legible, lighten, mix, t, type Asset, type BuildContext, type Scene } from "../src/templates/api";

type Ctx = BuildContext<unknown>;
type Sized = Asset & { fontSize: number };

/** The backdrop: a radial gradient of the base colour with sun-burst rays and a glow around (cx, cy), the product's place. */
function backdrop(ctx: Ctx, base: string, cx: number, cy: number): Promise<Asset> {
  const W = ctx.width;
  const H = ctx.height;
  const reach = Math.hypot(W, H);
  // Sun-burst rays behind the product: alternating wedges around its centre.
  const rays = Array.from({ length: 18 }, (_, i) => {
    const a0 = (i * 2 * Math.PI) / 18;
    const a1 = a0 + Math.PI / 18;
    return `<polygon points="${cx},${cy} ${cx + reach * Math.cos(a0)},${cy + reach * Math.sin(a0)} ${cx + reach * Math.cos(a1)},${cy + reach * Math.sin(a1)}" fill="#ffffff" opacity="0.06"/>`;
  }).join("");
  return ctx.svg(
    `<defs>
      <radialGradient id="bg" cx="${cx}" cy="${cy}" r="${reach * 0.6}" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="${lighten(base, 0.15)}"/><stop offset="1" stop-color="${darken(base, 0.35)}"/></radialGradient>
      <radialGradient id="glow" cx="${cx}" cy="${cy}" r="360" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffffff" stop-opacity="0.35"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>${rays}
    <rect width="${W}" height="${H}" fill="url(#glow)"/>`,
    W,
    H,
    "background",
    // Gradients and faint rays only: drawn at half resolution and stretched to the frame, the same picture for a quarter
    // of the cost (its two full-frame radial gradients took ~0.14 s to draw at 1080×1920).
    { detail: 0.5 },
  );
}

type PillOptions = { name: string; text: string; size: number; color: string; background: string; maxWidth: number; padX: number; padY: number; radius?: number; shadow?: boolean };

/** A button or badge whose picture reports its label's size (for layout checks). */
async function pill(ctx: Ctx, o: PillOptions): Promise<Sized> {
  const m = o.shadow ? 16 : 0;
  const label = await ctx.text({
    text: o.text, size: o.size, minSize: 36, weight: 800, maxWidth: o.maxWidth - 2 * o.padX - 2 * m, maxLines: 2, lineHeight: 1.05,
    color: o.color, align: "center", uppercase: true, letterSpacing: 0.06,
  });
  const bw = label.w + 2 * o.padX;
  const bh = Math.max(label.h, label.fontSize * 1.15) + 2 * o.padY;
  const radius = Math.min(bh / 2, o.radius ?? label.fontSize * 1.2);
  const group = await ctx.group({
    name: o.name, w: bw + 2 * m, h: bh + 2 * m,
    shadow: m ? { x: m, y: m, w: bw, h: bh, radius, blur: 9, dy: 7, opacity: 0.35 } : undefined,
    svg: `<rect x="${m}" y="${m}" width="${bw}" height="${bh}" rx="${radius}" fill="${o.background}"/>`,
    items: [{ image: label, x: m + bw / 2, y: m + bh / 2 }],
  });
  return { ...group, fontSize: label.fontSize };
}

/** The discount burst: a star of `d` template pixels with the saving (or "sale") in it. */
async function burst(ctx: Ctx, saving: string | null, accent: string, d: number): Promise<Sized> {
  const on = inkOn(accent);
  // Without prices the burst says "sale" in the video's language, which may be a long word ("REBAJAS", "İNDİRİM"): it
  // may use the star's solid body (radius 0.405 d) less a margin and shrink to the body floor, so every language fits.
  const label = saving
    ? await ctx.text({ text: saving, font: "display", weight: 900, size: d * 0.25, minSize: 40, maxWidth: d * 0.66, color: on, align: "center" })
    : await ctx.text({ text: ctx.s("sale"), font: "display", weight: 900, size: d * 0.19, minSize: 36, maxWidth: d * 0.74, color: on, align: "center", uppercase: true });
  const c = d / 2;
  // The thin ring keeps clear of the words: it widens round a long word, staying inside the star's body.
  const ring = Math.min(c * 0.78, Math.max(c * 0.69, label.w / 2 + 10));
  const points = Array.from({ length: 32 }, (_, i) => {
    const r = i % 2 === 0 ? c * 0.94 : c * 0.81;
    const a = (i * Math.PI) / 16;
    return `${c + r * Math.cos(a)},${c + r * Math.sin(a)}`;
  }).join(" ");
  const group = await ctx.group({
    name: "burst", w: d, h: d,
    svg: `<polygon points="${points}" fill="${accent}"/><circle cx="${c}" cy="${c}" r="${ring}" fill="none" stroke="${on}" stroke-opacity="0.25" stroke-width="3"/>`,
    items: [{ image: label, x: c, y: c }],
  });
  return { ...group, fontSize: label.fontSize };
}

/** Sizes per format: square and landscape put the words in a column beside the product, tall ones under it. */
function sizes(ctx: Ctx) {
  if (ctx.aspect === "16:9") return { side: true, productCol: 860, head: 84, price: 124, old: 48, cta: 44, burst: 300, badge: 40, top: ctx.safe.y };
  if (ctx.aspect === "1:1") return { side: true, productCol: 320, head: 70, price: 100, old: 42, cta: 38, burst: 250, badge: 40, top: ctx.safe.y };
  if (ctx.aspect === "4:5") return { side: false, productCol: 0, head: 76, price: 112, old: 46, cta: 42, burst: 250, badge: 40, top: ctx.safe.y };
  // 9:16: the product may rise into the top strip the apps cover; words stay inside the safe area.
  return { side: false, productCol: 0, head: 88, price: 124, old: 48, cta: 46, burst: 290, badge: 42, top: 150 };
}

export default defineTemplate({
  meta: {
    id: "flash-sale",
    name: "Flash sale",
    description: "Sale card: the product drops in, a discount burst, old price struck through, new price punched in, a running ticker.",
    translations: {
      tr: { name: "Flaş indirim", description: "İndirim kartı: yukarıdan düşen ürün, bir indirim rozeti, üstü çizili eski fiyat, vurgulu yeni fiyat ve kayan bir şerit." },
      de: { name: "Blitzangebot", description: "Sale-Karte: das Produkt fällt herein, ein Rabatt-Störer, der alte Preis durchgestrichen, der neue Preis springt ins Bild, ein Laufband." },
      fr: { name: "Vente flash", description: "Carte promo\u00a0: le produit se pose à sa place, une pastille de remise, l'ancien prix barré, le nouveau prix mis en avant, un bandeau défilant." },
      es: { name: "Oferta relámpago", description: "Tarjeta de rebajas: el producto cae en escena, una etiqueta de descuento, el precio anterior tachado, el nuevo precio destacado y un rótulo deslizante." },
      ar: { name: "تخفيضات خاطفة", description: "بطاقة تخفيضات: المنتج يهبط إلى مكانه، وشارة خصم، والسعر القديم مشطوب، والسعر الجديد بارز، وشريط متحرك." },
      ja: { name: "タイムセール", description: "セールカード。落ちてくる商品、割引バッジ、取り消し線付きの元値、強調された新価格、流れるテロップ。" },
    },
    aspect: "1:1",
    duration: 8,
    credits: 1,
    posterAt: 6,
  },
  prompt: t.Object({
    headline: fields.headline(50),
    price: fields.price(),
    old_price: fields.oldPrice(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const S = ctx.safe;
    const z = sizes(ctx);
    const primary = p.colors?.primary ?? "#d7263d";
    const accent = p.colors?.accent ?? "#ffd23f";
    // The shop's own background carries the sale's rays; without one, the primary colour does.
    const base = p.colors?.background ?? primary;
    const ink = p.colors?.text ?? inkOn(base);
    const colX = z.side ? S.x + z.productCol + 40 : S.x;
    const colW = S.x + S.w - colX - 8;

    const [burstImg, badgeImg, head, oldImg, priceImg, ctaImg, tick] = await Promise.all([
      burst(ctx, ctx.saving(p.price, p.old_price), accent, z.burst),
      pill(ctx, { name: "badge", text: ctx.s("limitedOffer"), size: z.badge, color: legible(primary, "#ffffff"), background: "#ffffff", maxWidth: colW, padX: 24, padY: 8, radius: 10 }),
      ctx.text({ name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: z.head, minSize: 64, maxWidth: colW, maxLines: ctx.aspect === "1:1" ? 5 : 4, color: ink, lineHeight: 0.95 }),
      p.old_price !== undefined && p.price !== undefined
        ? ctx.text({ name: "old_price", text: ctx.price(p.old_price), size: z.old, minSize: 36, weight: 600, maxWidth: colW, color: legible(mix(ink, base, 0.3), base), strike: true })
        : null,
      p.price !== undefined
        ? ctx.text({ name: "price", text: ctx.price(p.price), font: "display", weight: 900, size: z.price, minSize: 64, maxWidth: colW / 1.12, color: legible(accent, base, 3) })
        : null,
      pill(ctx, { name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: z.cta, color: inkOn(accent), background: accent, maxWidth: Math.min(colW, 760), padX: 44, padY: 20, shadow: true }),
      ticker(ctx, primary),
    ]);
    return compose(ctx, z, base, { burstImg, badgeImg, head, oldImg, priceImg, ctaImg, tick });
  },
});

/** The ticker: one phrase repeated into a strip wider than the frame plus one phrase (it slides by one phrase). */
async function ticker(ctx: Ctx, primary: string) {
  const unit = await ctx.text({ text: `${ctx.s("limitedOffer")}  •  ${ctx.s("sale")}  •  `, size: 34, weight: 800, maxWidth: 2000, color: legible(primary, "#ffffff"), uppercase: true });
  const period = unit.w + 20;
  const copies = Math.ceil((ctx.width + period) / period) + 1;
  const h = 84;
  const strip = await ctx.group({
    name: "ticker", w: copies * period, h,
    svg: `<rect width="${copies * period}" height="${h}" fill="#ffffff"/>`,
    items: Array.from({ length: copies }, (_, i) => ({ image: unit as Asset, x: i * period + period / 2, y: h / 2 })),
  });
  return { strip, period };
}

type Parts = { burstImg: Sized; badgeImg: Sized; head: Sized; oldImg: Sized | null; priceImg: Sized | null; ctaImg: Sized; tick: Awaited<ReturnType<typeof ticker>> };

/** Places the words (measured), the burst and the product in the room they leave, and the ticker. */
async function compose(ctx: Ctx, z: ReturnType<typeof sizes>, base: string, parts: Parts): Promise<Scene> {
  const { burstImg, badgeImg, head, oldImg, priceImg, ctaImg, tick } = parts;
  const S = ctx.safe;
  const H = ctx.height;
  // The ticker runs along the frame's foot, or in 9:16 along the foot of the safe area (the apps cover the rest).
  const tickerY = ctx.aspect === "9:16" ? S.y + S.h - 42 : H - 42;
  const bottom = Math.min(S.y + S.h, tickerY - 42 - 20);
  const colX = z.side ? S.x + z.productCol + 40 : S.x;
  const heights = [badgeImg.h, head.h, oldImg?.h ?? 0, priceImg?.h ?? 0, ctaImg.h];
  // Gaps close up when long copy fills the column.
  const fill = heights.reduce((a, b) => a + b, 0);
  const k = Math.max(0, Math.min(1, (bottom - S.y - fill) / 92));
  const gaps = [24 * k, 30 * k, 8, 30 * k];
  const height = fill + gaps.reduce((a, b) => a + b, 0);
  let y = z.side ? S.y + (bottom - S.y - height) / 2 : bottom - height;
  const textTop = y;
  const at = heights.map((h, i) => {
    const mid = y + h / 2;
    y += h + (gaps[i] ?? 0);
    return mid;
  });

  // The burst sits beside the product (tall formats and landscape) or above it in the square's narrow column.
  const margin = z.burst * 0.06;
  const drop = 85;
  const region = z.side ? { x: S.x, y: z.top, w: z.productCol, h: bottom - z.top } : { x: S.x, y: z.top, w: S.w, h: textTop - 40 - z.top };
  const above = ctx.aspect === "1:1";
  const burstX = region.x + region.w - z.burst / 2 - margin;
  const burstY = Math.max(S.y, region.y) + z.burst / 2 + margin;
  const area = above
    ? { x: region.x, y: burstY + z.burst / 2 + 10 + drop, w: region.w, h: region.y + region.h - (burstY + z.burst / 2 + 10 + drop) }
    : { x: region.x, y: region.y + drop, w: region.w - z.burst - 2 * margin - 20, h: region.h - drop };
  const cx = area.x + area.w / 2;
  const cy = area.y + area.h / 2 - 15;
  // The backdrop needs only where the product will sit, not its picture: both are drawn at once.
  const [prod, background] = await Promise.all([
    ctx.productImage({ maxWidth: area.w, maxHeight: area.h - 30, shadow: { opacity: 0.5, blur: 0.03, offsetY: 0.03 } }),
    backdrop(ctx, base, cx, cy),
  ]);
  const speed = 110;

  return {
    background,
    layers: [
      // Drops in from partly above (seen from the first frame), then keeps drifting slowly up.
      { name: "product", image: prod, x: cx, y: [[0, cy - 320], [0.9, cy, "back"], [8, cy - drop, "linear"]] },
      { name: "burst", image: burstImg, x: burstX, y: burstY, scale: [[1.0, 0.3], [1.5, 1, "back"]], rotate: [[1.0, -70], [1.5, 8, "out"]], opacity: [[1.0, 0], [1.15, 1]] },
      { name: "badge", image: badgeImg, x: colX, y: at[0]!, anchor: [0, 0.5], scale: [[0.5, 0.6], [1.0, 1, "out"]], opacity: [[0.5, 0], [0.7, 1]] },
      { name: "headline", image: head, x: colX, y: [[1.0, at[1]! + 20], [1.5, at[1]!, "out"]], anchor: [0, 0.5], opacity: [[1.0, 0], [1.3, 1]] },
      oldImg && { name: "old_price", image: oldImg, x: colX, y: at[2]!, anchor: [0, 0.5], opacity: [[1.5, 0], [1.8, 1]] },
      priceImg && { name: "price", image: priceImg, x: colX, y: at[3]!, anchor: [0, 0.5], scale: [[2.0, 0.4], [2.5, 1, "back"]], opacity: [[2.0, 0], [2.15, 1]] },
      { name: "cta", image: ctaImg, x: colX, y: at[4]!, anchor: [0, 0.5], scale: [[2.5, 0.7], [3.0, 1, "out"]], opacity: [[2.5, 0], [2.8, 1]] },
      {
        name: "ticker", image: tick.strip, anchor: [0, 0.5], y: tickerY,
        x: { expr: `-mod(t*${speed},${tick.period.toFixed(3)})`, at: (t) => -((t * speed) % tick.period) },
      },
    ],
  };
}
