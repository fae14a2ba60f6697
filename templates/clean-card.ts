// Template "clean-card": a calm square product card for marketplaces and feeds: soft colour, the product, its name and price.
import { darken, defineTemplate, fields, lighten, mix, readableOn, t } from "../src/templates/api";

export default defineTemplate({
  meta: {
    id: "clean-card",
    name: "Clean card",
    description: "A calm square card for shops and feeds: soft colour, the product rising into place, its name, price and a small button.",
    aspect: "1:1",
    duration: 7,
    credits: 1,
    posterAt: 5,
  },
  prompt: t.Object({
    headline: fields.headline(50),
    price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(20),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const W = ctx.width;
    const H = ctx.height;
    const tint = p.colors?.background ?? "#e7eef7";
    const primary = p.colors?.primary ?? "#1f3b63";
    const accent = p.colors?.accent ?? "#e8505b";
    const ink = p.colors?.text ?? readableOn(tint, "#17202c", "#ffffff");

    const background = ctx.svg(
      `<defs>
        <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${lighten(tint, 0.35)}"/><stop offset="1" stop-color="${tint}"/></linearGradient>
        <radialGradient id="disc" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#ffffff" stop-opacity="0.95"/><stop offset="0.7" stop-color="#ffffff" stop-opacity="0.55"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>
      </defs>
      <rect width="${W}" height="${H}" fill="url(#bg)"/>
      <circle cx="540" cy="420" r="380" fill="url(#disc)"/>
      <rect x="0" y="${H - 300}" width="${W}" height="300" fill="#ffffff" opacity="0.9"/>
      <rect x="0" y="${H - 300}" width="${W}" height="4" fill="${mix(tint, primary, 0.25)}"/>`,
      W,
      H,
      "background",
    );
    const product = ctx.productImage({ maxWidth: 560, maxHeight: 560, shadow: { opacity: 0.3, blur: 0.04, offsetY: 0.04 } });
    const tag = ctx.button({ name: "tag", text: ctx.s("new"), size: 28, weight: 700, color: "#ffffff", background: accent, maxWidth: 300, paddingX: 26, paddingY: 12, uppercase: true, letterSpacing: 0.12, radius: 8 });
    const name = ctx.text({ name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: 60, maxWidth: 620, maxLines: 2, color: ink === "#ffffff" ? darken(primary, 0.3) : ink, lineHeight: 0.95 });
    const price = p.price !== undefined ? ctx.text({ name: "price", text: ctx.price(p.price), font: "display", weight: 800, size: 58, maxWidth: 320, color: accent }) : null;
    const cta = ctx.button({ name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 32, weight: 700, color: readableOn(primary), background: primary, maxWidth: 340, paddingX: 40, paddingY: 20 });
    const [bg, prod, tagImg, nameImg, priceImg, ctaImg] = await Promise.all([background, product, tag, name, price, cta]);

    const bandY = H - 150;
    return {
      background: bg,
      layers: [
        // Seen from the first frame, and never still: after rising into place it keeps drifting slowly up.
        { name: "product", image: prod, x: 540, y: [[0, 520], [0.9, 430, "out"], [7, 370, "linear"]] },
        { name: "tag", image: tagImg, x: 70, y: 80, anchor: [0, 0.5], opacity: [[0.5, 0], [0.8, 1]] },
        { name: "headline", image: nameImg, x: [[0.7, 110], [1.3, 70, "out"]], y: bandY, anchor: [0, 0.5], opacity: [[0.7, 0], [1.1, 1]] },
        priceImg && { name: "price", image: priceImg, x: W - 70, y: [[1.1, bandY - 20], [1.6, bandY - 45, "out"]], anchor: [1, 0.5], opacity: [[1.1, 0], [1.4, 1]] },
        {
          name: "cta", image: ctaImg, x: W - 62, y: priceImg ? bandY + 50 : bandY, anchor: [1, 0.5],
          scale: [[1.6, 0.7], [2.0, 1, "back"]], opacity: [[1.6, 0], [1.8, 1]],
        },
      ],
    };
  },
});
