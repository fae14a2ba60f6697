// Template "flash-sale": a loud square sale card: the product drops in, a discount burst, the old price struck
// through, the new one punched in, and a ticker of "limited offer" running along the bottom.
import { darken, defineTemplate, fields, lighten, readableOn, t, type Asset, type BuildContext } from "../src/templates/api";

/** The backdrop: a radial gradient of the primary colour with sun-burst rays and a glow around (cx, cy), the product's place. */
function backdrop(ctx: BuildContext<unknown>, primary: string, cx: number, cy: number): Promise<Asset> {
  const W = ctx.width;
  const H = ctx.height;
  // Sun-burst rays behind the product: alternating wedges around its centre.
  const rays = Array.from({ length: 18 }, (_, i) => {
    const a0 = (i * 2 * Math.PI) / 18;
    const a1 = a0 + Math.PI / 18;
    const r = 1300;
    return `<polygon points="${cx},${cy} ${cx + r * Math.cos(a0)},${cy + r * Math.sin(a0)} ${cx + r * Math.cos(a1)},${cy + r * Math.sin(a1)}" fill="#ffffff" opacity="0.06"/>`;
  }).join("");
  return ctx.svg(
    `<defs>
      <radialGradient id="bg" cx="${cx}" cy="${cy}" r="1000" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="${lighten(primary, 0.15)}"/><stop offset="1" stop-color="${darken(primary, 0.35)}"/></radialGradient>
      <radialGradient id="glow" cx="${cx}" cy="${cy}" r="360" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffffff" stop-opacity="0.35"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>${rays}
    <rect width="${W}" height="${H}" fill="url(#glow)"/>
    <ellipse cx="${cx}" cy="860" rx="220" ry="26" fill="#000" opacity="0.25"/>`,
    W,
    H,
    "background",
  );
}

export default defineTemplate({
  meta: {
    id: "flash-sale",
    name: "Flash sale",
    description: "Square sale card: the product drops in, a discount burst, old price struck through, new price punched in, a running ticker.",
    aspect: "1:1",
    duration: 8,
    credits: 1,
    posterAt: 6,
  },
  prompt: t.Object({
    headline: fields.headline(50),
    price: fields.price(),
    old_price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const W = ctx.width;
    const H = ctx.height;
    const primary = p.colors?.primary ?? "#d7263d";
    const accent = p.colors?.accent ?? "#ffd23f";
    const ink = p.colors?.text ?? readableOn(primary);
    const onAccent = readableOn(accent, "#1a1a1a");
    const cx = 300;
    const cy = 500;

    const background = backdrop(ctx, primary, cx, cy);

    const product = ctx.productImage({ maxWidth: 500, maxHeight: 620, shadow: { opacity: 0.5, blur: 0.03, offsetY: 0.03 } });
    const saving = ctx.saving(p.price, p.old_price);
    const burst = (async () => {
      const label = saving
        ? await ctx.text({ text: saving, font: "display", weight: 900, size: 84, maxWidth: 230, color: onAccent, align: "center" })
        : await ctx.text({ text: ctx.s("sale"), font: "display", weight: 900, size: 64, maxWidth: 230, color: onAccent, align: "center", uppercase: true });
      const points = Array.from({ length: 32 }, (_, i) => {
        const r = i % 2 === 0 ? 160 : 138;
        const a = (i * Math.PI) / 16;
        return `${170 + r * Math.cos(a)},${170 + r * Math.sin(a)}`;
      }).join(" ");
      return ctx.group({
        name: "burst", w: 340, h: 340,
        svg: `<polygon points="${points}" fill="${accent}"/><circle cx="170" cy="170" r="118" fill="none" stroke="${onAccent}" stroke-opacity="0.25" stroke-width="3"/>`,
        items: [{ image: label, x: 170, y: 170 }],
      });
    })();
    const colX = 600;
    const colW = W - colX - 60;
    const badge = ctx.button({ name: "badge", text: ctx.s("limitedOffer"), size: 30, weight: 800, color: primary, background: "#ffffff", maxWidth: colW, paddingX: 28, paddingY: 12, uppercase: true, letterSpacing: 0.08, radius: 10 });
    const headline = ctx.text({ name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: 64, maxWidth: colW, maxLines: 2, color: ink, lineHeight: 0.95 });
    const oldPrice = p.old_price !== undefined && p.price !== undefined
      ? ctx.text({ name: "old-price", text: ctx.price(p.old_price), size: 44, weight: 600, maxWidth: colW, color: lighten(primary, 0.55), strike: true })
      : null;
    const price = p.price !== undefined
      ? ctx.text({ name: "price", text: ctx.price(p.price), font: "display", weight: 900, size: 112, maxWidth: colW, color: accent })
      : null;
    const cta = ctx.button({ name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 40, weight: 800, color: onAccent, background: accent, maxWidth: colW, paddingX: 56, paddingY: 24, shadow: true, uppercase: true });

    // The ticker: one phrase repeated into a strip wider than the frame plus one phrase, then slid by one phrase.
    const ticker = (async () => {
      const unit = await ctx.text({ text: `${ctx.s("limitedOffer")}  •  ${ctx.s("sale")}  •  `, size: 34, weight: 800, maxWidth: 2000, color: primary, uppercase: true });
      const period = unit.w + 20;
      const copies = Math.ceil((W + period) / period) + 1;
      const h = 84;
      const strip = await ctx.group({
        name: "ticker", w: copies * period, h,
        svg: `<rect width="${copies * period}" height="${h}" fill="#ffffff"/>`,
        items: Array.from({ length: copies }, (_, i) => ({ image: unit as Asset, x: i * period + period / 2, y: h / 2 })),
      });
      return { strip, period };
    })();

    const [bg, prod, burstImg, badgeImg, head, oldImg, priceImg, ctaImg, tick] = await Promise.all([background, product, burst, badge, headline, oldPrice, price, cta, ticker]);
    let y = 360;
    const badgeY = y + badgeImg.h / 2;
    y += badgeImg.h + 30;
    const headY = y + head.h / 2;
    y += head.h + 36;
    const oldY = oldImg ? y + oldImg.h / 2 : 0;
    if (oldImg) y += oldImg.h + 18;
    const priceY = priceImg ? y + priceImg.h / 2 : 0;
    if (priceImg) y += priceImg.h + 50;
    const ctaY = Math.min(y + ctaImg.h / 2, H - 84 - 36 - ctaImg.h / 2);
    const speed = 110;

    return {
      background: bg,
      layers: [
        // Drops in from partly above (seen from the first frame), then keeps drifting slowly up.
        { name: "product", image: prod, x: cx, y: [[0, cy - 320], [0.9, cy, "back"], [8, cy - 85, "linear"]] },
        { name: "burst", image: burstImg, x: 850, y: 185, scale: [[1.0, 0.3], [1.5, 1, "back"]], rotate: [[1.0, -70], [1.5, 8, "out"]], opacity: [[1.0, 0], [1.15, 1]] },
        { name: "badge", image: badgeImg, x: [[0.5, W + 20], [1.0, colX, "out"]], y: badgeY, anchor: [0, 0.5] },
        { name: "headline", image: head, x: colX, y: [[0.8, headY + 50], [1.3, headY, "out"]], anchor: [0, 0.5], opacity: [[0.8, 0], [1.1, 1]] },
        oldImg && { name: "old-price", image: oldImg, x: colX, y: oldY, anchor: [0, 0.5], opacity: [[1.6, 0], [1.9, 1]] },
        priceImg && { name: "price", image: priceImg, x: colX + priceImg.w / 2, y: priceY, scale: [[2.0, 1.8], [2.4, 1, "out"]], opacity: [[2.0, 0], [2.15, 1]] },
        { name: "cta", image: ctaImg, x: colX, y: [[2.8, ctaY + 60], [3.3, ctaY, "out"]], anchor: [0, 0.5], opacity: [[2.8, 0], [3.1, 1]] },
        {
          name: "ticker", image: tick.strip, anchor: [0, 0.5], y: H - 42,
          x: { expr: `-mod(t*${speed},${tick.period.toFixed(3)})`, at: (t) => -((t * speed) % tick.period) },
        },
      ],
    };
  },
});
