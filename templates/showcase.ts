// Template "showcase": the product slides and spins in on a bold backdrop, shows its selling points, and ends on a
// call-to-action card with the price.
import { darken, defineTemplate, fields, lighten, mix, phrasesFrom, readableOn, t, type Asset, type BuildContext } from "../src/templates/api";

/** The backdrop: a diagonal gradient of the primary colour, bands and rings, a halo where the product lands. */
function backdrop(ctx: BuildContext<unknown>, primary: string, accent: string): Promise<Asset> {
  const W = ctx.width;
  const H = ctx.height;
  const light = lighten(primary, 0.18);
  const deep = darken(primary, 0.25);
  return ctx.svg(
    `<defs>
      <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${light}"/><stop offset="1" stop-color="${deep}"/></linearGradient>
      <radialGradient id="halo" cx="540" cy="760" r="560" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffffff" stop-opacity="0.35"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <polygon points="0,1180 1080,760 1080,1120 0,1540" fill="${accent}" opacity="0.16"/>
    <polygon points="0,300 1080,0 1080,90 0,390" fill="#ffffff" opacity="0.10"/>
    <rect width="${W}" height="${H}" fill="url(#halo)"/>
    <circle cx="930" cy="300" r="150" fill="none" stroke="#ffffff" stroke-opacity="0.25" stroke-width="28"/>
    <circle cx="120" cy="1400" r="70" fill="#ffffff" opacity="0.12"/>
    ${Array.from({ length: 5 }, (_, r) => Array.from({ length: 5 }, (_, c) => `<circle cx="${70 + c * 34}" cy="${230 + r * 34}" r="5" fill="#ffffff" opacity="0.35"/>`).join("")).join("")}`,
    W,
    H,
    "background",
  );
}

export default defineTemplate({
  meta: {
    id: "showcase",
    name: "Showcase",
    description: "The product slides and spins in on a bold backdrop, shows up to three selling points and ends on a call-to-action card.",
    aspect: "9:16",
    duration: 10,
    credits: 2,
    posterAt: 8.5,
  },
  prompt: t.Object({
    headline: fields.headline(40),
    price: fields.price(),
    old_price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    features: fields.features(3),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const W = ctx.width;
    const H = ctx.height;
    const primary = p.colors?.primary ?? "#ff5a36";
    const accent = p.colors?.accent ?? "#1b1b3a";
    const ink = p.colors?.text ?? readableOn(primary);
    const background = backdrop(ctx, primary, accent);

    const product = ctx.productImage({ maxWidth: 720, maxHeight: 760, shadow: { opacity: 0.45, blur: 0.03, offsetY: 0.03 } });
    const eyebrow = ctx.text({ name: "eyebrow", text: ctx.s("newArrival"), size: 38, weight: 700, maxWidth: 900, color: ink, uppercase: true, letterSpacing: 0.18, align: "start" });
    const headline = ctx.text({
      name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 900, size: 112,
      maxWidth: 940, maxLines: 2, color: ink, lineHeight: 0.92, align: "start",
    });
    const features = (p.features ?? phrasesFrom(ctx.product.description, 3, 34)).slice(0, 3);
    const chips = Promise.all(
      features.map((f, i) =>
        ctx.button({ name: `feature-${i}`, text: f, size: 34, weight: 600, color: accent, background: "#ffffff", maxWidth: 760, paddingX: 34, paddingY: 18, shadow: true }),
      ),
    );

    // The closing card: name, price (and the old one, struck), and the button, merged into one picture.
    const card = (async () => {
      const cardW = 940;
      const [name, price, old, button] = await Promise.all([
        ctx.text({ text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: 58, maxWidth: cardW - 120, maxLines: 2, color: accent, align: "center" }),
        p.price !== undefined ? ctx.text({ text: ctx.price(p.price), font: "display", weight: 900, size: 96, maxWidth: cardW - 120, color: primary, align: "center" }) : null,
        p.old_price !== undefined && p.price !== undefined
          ? ctx.text({ text: ctx.price(p.old_price), size: 44, weight: 600, maxWidth: 400, color: mix(accent, "#ffffff", 0.45), strike: true, align: "center" })
          : null,
        ctx.button({ text: p.call_to_action ?? ctx.s("shopNow"), size: 46, weight: 700, color: readableOn(accent), background: accent, maxWidth: cardW - 140, paddingX: 80, paddingY: 30 }),
      ]);
      const gap = 34;
      let y = 70;
      const items: { image: Asset; x: number; y: number }[] = [];
      items.push({ image: name, x: cardW / 2, y: y + name.h / 2 });
      y += name.h + gap;
      if (price && old) {
        // Old and new price side by side, the old one first in reading order.
        const total = old.w + 36 + price.w;
        items.push({ image: old, x: cardW / 2 - total / 2 + old.w / 2, y: y + price.h / 2 + 6 });
        items.push({ image: price, x: cardW / 2 + total / 2 - price.w / 2, y: y + price.h / 2 });
        y += price.h + gap;
      } else if (price) {
        items.push({ image: price, x: cardW / 2, y: y + price.h / 2 });
        y += price.h + gap;
      }
      items.push({ image: button, x: cardW / 2, y: y + button.h / 2 });
      y += button.h + 60;
      return ctx.group({
        name: "card", w: cardW, h: y + 40,
        shadow: { x: 24, y: 24, w: cardW - 48, h: y - 20, radius: 48, blur: 18, dy: 14, opacity: 0.28 },
        svg: `<rect x="20" y="10" width="${cardW - 40}" height="${y}" rx="48" fill="#ffffff"/>`,
        items,
      });
    })();

    const [bg, prod, brow, head, chipImgs, cardImg] = await Promise.all([background, product, eyebrow, headline, chips, card]);
    const px = 540;
    const py = 800;
    const headTop = 1240;
    const cardY = H - 70 - cardImg.h / 2;
    // Where the product rests once the card is up: above it, smaller.
    const restY = Math.min(py, cardY - cardImg.h / 2 - prod.content.h * 0.36);

    return {
      background: bg,
      layers: [
        {
          name: "product", image: prod,
          // Swings in from the right edge (seen from the first frame), then drifts slowly: never still.
          x: [[0, px + 320], [1.0, px, "out"]],
          y: [[0, py + 120], [1.0, py, "out"], [5.6, py - 55, "linear"], [6.4, restY, "inOut"], [10, restY - 45, "linear"]],
          rotate: [[0, 38], [1.0, 0, "out"]],
          scale: [[5.6, 1], [6.4, 0.72, "inOut"]],
        },
        { name: "eyebrow", image: brow, x: [[0.9, -brow.w], [1.5, 70, "out"]], y: headTop, anchor: [0, 0.5], to: 5.6 },
        { name: "headline", image: head, x: [[1.1, -head.w], [1.8, 70, "out"]], y: headTop + 40 + head.h / 2, anchor: [0, 0.5], to: 5.6 },
        ...chipImgs.map((chip, i) => ({
          name: `feature-${i}`,
          image: chip,
          x: 70,
          y: headTop + 40 + head.h + 60 + i * (chip.h + 10) + chip.h / 2,
          anchor: [0, 0.5] as [number, number],
          scale: [[2.2 + i * 0.45, 0.6], [2.6 + i * 0.45, 1, "back"]] as [number, number, "back"][],
          opacity: [[2.2 + i * 0.45, 0], [2.4 + i * 0.45, 1], [5.3, 1], [5.6, 0]] as [number, number][],
        })),
        { name: "card", image: cardImg, x: 540, y: [[5.8, H + cardImg.h / 2], [6.6, cardY, "out"]], from: 5.8 },
      ],
    };
  },
});
