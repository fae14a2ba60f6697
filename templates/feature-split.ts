// Template "feature-split": a wide split layout, the product on a colour panel, its selling points revealed one by one.
import { darken, defineTemplate, fields, firstSentence, lighten, mix, phrasesFrom, readableOn, t, type Asset } from "../src/templates/api";

export default defineTemplate({
  meta: {
    id: "feature-split",
    name: "Feature split",
    description: "Wide split layout: the product on a colour panel, up to four selling points revealed one by one, then price and call to action.",
    aspect: "16:9",
    duration: 12,
    credits: 2,
    posterAt: 10,
  },
  prompt: t.Object({
    headline: fields.headline(60),
    features: fields.features(4),
    price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    colors: fields.colors(),
  }),
  strings: {
    en: { more: "and more" },
    tr: { more: "ve dahası" },
    de: { more: "und mehr" },
    fr: { more: "et plus encore" },
    es: { more: "y mucho más" },
    ar: { more: "والمزيد" },
    ja: { more: "ほかにも" },
  },
  async build(ctx) {
    const p = ctx.prompt;
    const W = ctx.width;
    const H = ctx.height;
    const primary = p.colors?.primary ?? "#2f5d50";
    const accent = p.colors?.accent ?? "#f2b134";
    const paper = p.colors?.background ?? "#f6f3ec";
    const ink = p.colors?.text ?? readableOn(paper, "#1d2320", "#ffffff");
    const panelW = 860;

    const background = ctx.svg(
      `<defs><pattern id="dots" width="36" height="36" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="2.4" fill="${mix(paper, ink, 0.12)}"/></pattern></defs>
      <rect width="${W}" height="${H}" fill="${paper}"/>
      <rect x="${W - 420}" y="0" width="420" height="${H}" fill="url(#dots)" opacity="0.8"/>
      <rect x="${W - 560}" y="${H - 14}" width="560" height="14" fill="${accent}"/>`,
      W,
      H,
      "background",
    );
    const panel = ctx.svg(
      `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${lighten(primary, 0.12)}"/><stop offset="1" stop-color="${darken(primary, 0.3)}"/></linearGradient>
      <radialGradient id="l" cx="420" cy="520" r="420" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffffff" stop-opacity="0.28"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient></defs>
      <rect width="${panelW}" height="${H}" fill="url(#g)"/>
      <rect width="${panelW}" height="${H}" fill="url(#l)"/>
      <circle cx="420" cy="540" r="330" fill="none" stroke="#ffffff" stroke-opacity="0.18" stroke-width="2"/>
      <circle cx="${panelW - 90}" cy="110" r="44" fill="none" stroke="${accent}" stroke-width="10"/>
      <ellipse cx="420" cy="930" rx="250" ry="30" fill="#000000" opacity="0.18"/>`,
      panelW,
      H,
      "panel",
    );
    const product = ctx.productImage({ maxWidth: 600, maxHeight: 720, shadow: { opacity: 0.5, blur: 0.03, offsetY: 0.03 } });
    const colX = panelW + 110;
    const colW = W - colX - 110;
    const eyebrow = ctx.text({ name: "eyebrow", text: ctx.s("whyLoveIt"), size: 30, weight: 700, maxWidth: colW, color: primary, uppercase: true, letterSpacing: 0.16 });
    const headline = ctx.text({
      name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size: 76, maxWidth: colW, maxLines: 2, color: ink, lineHeight: 0.95,
    });
    let points = p.features ?? phrasesFrom(ctx.product.description, 4);
    if (points.length === 0) points = [firstSentence(ctx.product.description, 48) ?? ctx.s("premiumQuality")];
    const rows = Promise.all(
      points.slice(0, 4).map(async (text, i) => {
        const label = await ctx.text({ text, size: 40, weight: 600, maxWidth: colW - 100, maxLines: 2, color: ink, lineHeight: 1.05 });
        const check = await ctx.svg(
          `<circle cx="28" cy="28" r="28" fill="${accent}"/><path d="M16 29 L25 38 L41 19" fill="none" stroke="${readableOn(accent)}" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>`,
          56, 56, "check",
        );
        // Rows are as tall as their lines of type (not their ink), so the gaps between points look even.
        const h = Math.max(72, label.lines * label.fontSize * 1.3 + 16);
        return ctx.group({
          name: `feature-${i}`, w: colW, h,
          items: [
            { image: check, x: 28, y: h / 2 },
            { image: label, x: 90, y: h / 2, anchor: [0, 0.5] },
          ],
        });
      }),
    );
    const price = p.price !== undefined
      ? ctx.text({ name: "price", text: ctx.price(p.price), font: "display", weight: 900, size: 84, maxWidth: colW / 2, color: primary })
      : null;
    const cta = ctx.button({ name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 40, weight: 700, color: readableOn(primary), background: primary, maxWidth: colW / 2, paddingX: 64, paddingY: 26, shadow: true });

    const [bg, panelImg, prod, brow, head, rowImgs, priceImg, ctaImg] = await Promise.all([background, panel, product, eyebrow, headline, rows, price, cta]);
    const top = 150;
    const headY = top + brow.h + 28 + head.h / 2;
    let y = headY + head.h / 2 + 50;
    const rowLayers = rowImgs.map((row: Asset, i) => {
      const at = 2.2 + i * 0.7;
      const layer = {
        name: `feature-${i}`, image: row, anchor: [0, 0.5] as [number, number],
        x: [[at, colX + 70], [at + 0.5, colX, "out"]] as [number, number, "out"?][],
        y: y + row.h / 2,
        opacity: [[at, 0], [at + 0.35, 1]] as [number, number][],
      };
      y += row.h + 22;
      return layer;
    });
    const bottomY = H - 120;

    return {
      background: bg,
      layers: [
        { name: "panel", image: panelImg, x: [[0, -panelW], [0.8, 0, "out"]], y: H / 2, anchor: [0, 0.5] },
        // Seen from the first frame, and never still: after settling it keeps drifting slowly up.
        { name: "product", image: prod, x: 420, y: [[0.6, 620], [1.4, 520, "out"], [12, 400, "linear"]], scale: [[0.6, 0.86], [1.4, 1, "out"]] },
        { name: "eyebrow", image: brow, x: colX, y: top + brow.h / 2, anchor: [0, 0.5], opacity: [[1.0, 0], [1.4, 1]] },
        { name: "headline", image: head, x: [[1.2, colX + 60], [1.8, colX, "out"]], y: headY, anchor: [0, 0.5], opacity: [[1.2, 0], [1.6, 1]] },
        ...rowLayers,
        priceImg && { name: "price", image: priceImg, x: colX, y: [[7.4, bottomY + 40], [8.0, bottomY, "out"]], anchor: [0, 0.5], opacity: [[7.4, 0], [7.8, 1]] },
        {
          name: "cta", image: ctaImg, x: priceImg ? colX + priceImg.w + 60 : colX - 20, y: [[7.8, bottomY + 40], [8.4, bottomY, "out"]],
          anchor: [0, 0.5], opacity: [[7.8, 0], [8.2, 1]],
        },
      ],
    };
  },
});
