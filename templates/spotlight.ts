// Template "spotlight": the cut-out product under a studio light with a slow push-in, its name, price and a call to action.
import { darken, defineTemplate, fields, firstSentence, lighten, mix, readableOn, t, type Asset, type BuildContext } from "../src/templates/api";

/** The studio: a dark gradient in the primary colour, a beam of light and a spot in the accent's tint, a floor shadow. */
function backdrop(ctx: BuildContext<unknown>, primary: string, accent: string): Promise<Asset> {
  const W = ctx.width;
  const H = ctx.height;
  const top = lighten(primary, 0.12);
  const bottom = darken(primary, 0.6);
  const beam = mix(accent, "#ffffff", 0.6);
  return ctx.svg(
    `<defs>
      <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="${bottom}"/></linearGradient>
      <radialGradient id="spot" cx="540" cy="820" r="700" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="${beam}" stop-opacity="0.42"/><stop offset="0.55" stop-color="${beam}" stop-opacity="0.08"/><stop offset="1" stop-color="${beam}" stop-opacity="0"/></radialGradient>
      <linearGradient id="beam" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff" stop-opacity="0.16"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></linearGradient>
      <radialGradient id="floor" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#000" stop-opacity="0.55"/><stop offset="1" stop-color="#000" stop-opacity="0"/></radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <polygon points="380,0 700,0 1000,1300 80,1300" fill="url(#beam)"/>
    <rect width="${W}" height="${H}" fill="url(#spot)"/>
    <circle cx="540" cy="820" r="470" fill="none" stroke="${accent}" stroke-opacity="0.22" stroke-width="3"/>
    <circle cx="540" cy="820" r="520" fill="none" stroke="#ffffff" stroke-opacity="0.07" stroke-width="2"/>
    <ellipse cx="540" cy="1255" rx="330" ry="46" fill="url(#floor)"/>`,
    W,
    H,
    "background",
  );
}

export default defineTemplate({
  meta: {
    id: "spotlight",
    name: "Spotlight",
    description: "The product alone under a studio light: a slow push-in, its name, price and a call to action.",
    aspect: "9:16",
    duration: 8,
    credits: 1,
    posterAt: 6,
  },
  prompt: t.Object({
    headline: fields.headline(),
    subheadline: fields.subheadline(),
    price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const W = ctx.width;
    const H = ctx.height;
    const primary = p.colors?.primary ?? "#16233f";
    const accent = p.colors?.accent ?? "#ffb547";
    const ink = p.colors?.text ?? "#ffffff";
    const background = backdrop(ctx, primary, accent);

    const product = ctx.productImage({ maxWidth: 780, maxHeight: 840, shadow: { opacity: 0.5, blur: 0.03, offsetY: 0.025 } });
    const chip = ctx.button({
      name: "chip", text: ctx.s("new"), size: 34, weight: 700, color: readableOn(accent), background: accent,
      maxWidth: 420, paddingX: 30, paddingY: 14, uppercase: true, letterSpacing: 0.12,
    });
    const headline = ctx.text({
      name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: 92,
      maxWidth: 920, maxLines: 2, align: "center", color: ink, lineHeight: 0.95,
    });
    const sub = p.subheadline ?? firstSentence(ctx.product.description, 80);
    const subline = sub
      ? ctx.text({ name: "subheadline", text: sub, size: 40, maxWidth: 860, maxLines: 2, align: "center", color: mix(ink, primary, 0.25) })
      : null;
    const sticker = async () => {
      if (p.price === undefined) return null;
      const on = readableOn(accent);
      const [label, amount] = await Promise.all([
        ctx.text({ text: ctx.s("now"), size: 30, weight: 600, maxWidth: 200, color: on, uppercase: true, letterSpacing: 0.1, align: "center" }),
        ctx.text({ text: ctx.price(p.price), font: "display", weight: 800, size: 60, maxWidth: 220, color: on, align: "center" }),
      ]);
      return ctx.group({
        name: "price", w: 300, h: 300,
        shadow: { x: 18, y: 18, w: 264, h: 264, radius: 132, blur: 9, dy: 7, opacity: 0.35 },
        svg: `<circle cx="150" cy="150" r="132" fill="${accent}"/>
          <circle cx="150" cy="150" r="116" fill="none" stroke="${on}" stroke-opacity="0.35" stroke-width="2" stroke-dasharray="6 6"/>`,
        items: [
          { image: label, x: 150, y: 112 },
          { image: amount, x: 150, y: 172 },
        ],
      });
    };
    const price = sticker();
    const cta = ctx.button({
      name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 46, weight: 700, color: primary, background: "#ffffff",
      maxWidth: 760, paddingX: 70, paddingY: 30, shadow: true,
    });
    const [bg, prod, chipImg, head, subImg, priceImg, ctaImg] = await Promise.all([background, product, chip, headline, subline, price, cta]);

    // Text stacks under the product; its height decides where each line lands.
    const headY = 1395 + head.h / 2;
    const subY = headY + head.h / 2 + 34 + (subImg ? subImg.h / 2 : 0);
    const productY = 830;
    // The price sticker sits on the product's upper shoulder, whatever the product's shape.
    const priceX = Math.min(W - 170, 540 + prod.content.w / 2 + 10);
    const priceY = Math.max(330, productY - prod.content.h / 2 + 150);
    // The button follows the words (not the bottom edge), so short and long texts both read as one block.
    const textBottom = subImg ? subY + subImg.h / 2 : headY + head.h / 2;
    const ctaY = Math.min(H - 130 - ctaImg.h / 2, textBottom + 90 + ctaImg.h / 2);

    return {
      background: bg,
      layers: [
        {
          name: "product", image: prod, x: 540,
          // A push-in while the words arrive, then a slow drift up (a video that stands still reads as a slide),
          // seen from the first frame.
          y: [[0, productY + 90], [1.2, productY, "out"], [8, productY - 80, "linear"]],
          scale: [[0, 0.86], [1.4, 1, "out"]],
        },
        { name: "chip", image: chipImg, x: [[0.4, 40], [1.0, 80, "out"]], y: 190, anchor: [0, 0.5], opacity: [[0.4, 0], [0.8, 1]] },
        { name: "headline", image: head, x: 540, y: [[0.9, headY + 60], [1.5, headY, "out"]], opacity: [[0.9, 0], [1.3, 1]] },
        subImg && { name: "subheadline", image: subImg, x: 540, y: [[1.3, subY + 40], [1.9, subY, "out"]], opacity: [[1.3, 0], [1.7, 1]] },
        priceImg && { name: "price", image: priceImg, x: priceX, y: priceY, scale: [[2.1, 0.4], [2.6, 1, "back"]], rotate: [[2.1, -30], [2.6, -8, "out"]], opacity: [[2.1, 0], [2.3, 1]] },
        {
          name: "cta", image: ctaImg, x: 540,
          y: [[3.0, ctaY + 80], [3.6, ctaY, "out"]],
          // Two soft presses draw the eye to the button (short, so the frames between them cost nothing).
          scale: [[4.3, 1], [4.5, 0.94], [4.75, 1, "back"], [6.1, 1], [6.3, 0.94], [6.55, 1, "back"]],
          opacity: [[3.0, 0], [3.4, 1]],
        },
      ],
    };
  },
});
