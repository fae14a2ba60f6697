// Template "minimal-luxe": quiet and elegant: ivory and gold, a serif name, the product rising slowly in an arch.
import { defineTemplate, fields, firstSentence, mix, readableOn, t } from "../src/templates/api";

export default defineTemplate({
  meta: {
    id: "minimal-luxe",
    name: "Minimal luxe",
    description: "Quiet and elegant: ivory and gold, a serif name, the product rising slowly inside an arch, a discreet price.",
    aspect: "9:16",
    duration: 10,
    credits: 3,
    premium: true,
    posterAt: 8,
  },
  prompt: t.Object({
    headline: fields.headline(50),
    subheadline: fields.subheadline(80),
    price: fields.price(),
    currency: fields.currency(),
    call_to_action: fields.callToAction(),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const W = ctx.width;
    const H = ctx.height;
    const paper = p.colors?.background ?? "#f4eee4";
    const gold = p.colors?.accent ?? "#a8844a";
    const ink = p.colors?.text ?? readableOn(paper, "#2a241d", "#f7f1e6");
    const arch = p.colors?.primary ?? mix(paper, gold, 0.16);

    const background = ctx.svg(
      `<defs>
        <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${mix(paper, "#ffffff", 0.35)}"/><stop offset="1" stop-color="${mix(paper, gold, 0.1)}"/></linearGradient>
        <linearGradient id="arch" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${mix(arch, "#ffffff", 0.2)}"/><stop offset="1" stop-color="${arch}"/></linearGradient>
      </defs>
      <rect width="${W}" height="${H}" fill="url(#bg)"/>
      <path d="M200 1260 L200 640 A340 340 0 0 1 880 640 L880 1260 Z" fill="url(#arch)"/>
      <path d="M176 1284 L176 640 A364 364 0 0 1 904 640 L904 1284" fill="none" stroke="${gold}" stroke-opacity="0.55" stroke-width="2"/>
      <rect x="44" y="44" width="${W - 88}" height="${H - 88}" fill="none" stroke="${gold}" stroke-opacity="0.6" stroke-width="2"/>
      <ellipse cx="540" cy="1232" rx="240" ry="22" fill="#000" opacity="0.10"/>`,
      W,
      H,
      "background",
    );
    const product = ctx.productImage({ maxWidth: 560, maxHeight: 760, shadow: { opacity: 0.28, blur: 0.045, offsetY: 0.035 } });
    const eyebrow = ctx.text({ name: "eyebrow", text: ctx.s("newCollection"), size: 28, weight: 600, maxWidth: 800, color: gold, uppercase: true, letterSpacing: 0.32, align: "center" });
    const name = ctx.text({ name: "headline", text: p.headline ?? ctx.product.name, font: "serif", italic: true, size: 96, maxWidth: 860, maxLines: 2, color: ink, align: "center", lineHeight: 1.0 });
    const sub = p.subheadline ?? firstSentence(ctx.product.description, 70);
    const subline = sub ? ctx.text({ name: "subheadline", text: sub, font: "serif", size: 38, maxWidth: 820, maxLines: 2, color: mix(ink, paper, 0.3), align: "center" }) : null;
    const rule = ctx.svg(`<rect width="260" height="3" fill="${gold}"/>`, 260, 3, "rule");
    const price = p.price !== undefined ? ctx.text({ name: "price", text: ctx.price(p.price), font: "serif", size: 58, maxWidth: 600, color: ink, align: "center" }) : null;
    const cta = ctx.button({
      name: "cta", text: p.call_to_action ?? ctx.s("discover"), size: 32, weight: 600, color: ink, background: mix(paper, "#ffffff", 0.3),
      border: { color: gold, width: 3 }, maxWidth: 700, paddingX: 64, paddingY: 24, uppercase: true, letterSpacing: 0.2, radius: 4,
    });
    const [bg, prod, brow, nameImg, subImg, ruleImg, priceImg, ctaImg] = await Promise.all([background, product, eyebrow, name, subline, rule, price, cta]);

    let y = 1370;
    const browY = y + brow.h / 2;
    y += brow.h + 40;
    const nameY = y + nameImg.h / 2;
    y += nameImg.h + 40;
    const ruleY = y;
    y += 44;
    const subY = subImg ? y + subImg.h / 2 : 0;
    if (subImg) y += subImg.h + 36;
    const priceY = priceImg ? y + priceImg.h / 2 : 0;
    if (priceImg) y += priceImg.h;
    const ctaY = Math.max(y + 50 + ctaImg.h / 2, H - 120 - ctaImg.h / 2);

    return {
      background: bg,
      layers: [
        // Seen from the first frame, and never still: a slow rise over the whole video.
        { name: "product", image: prod, x: 540, y: [[0, 890], [2.4, 836, "out"], [10, 745, "linear"]] },
        { name: "eyebrow", image: brow, x: 540, y: browY, opacity: [[1.4, 0], [2.0, 1]] },
        { name: "headline", image: nameImg, x: 540, y: [[1.8, nameY + 30], [2.8, nameY, "out"]], opacity: [[1.8, 0], [2.6, 1]] },
        { name: "rule", image: ruleImg, x: 540, y: ruleY, scale: [[2.6, 0.02], [3.4, 1, "inOut"]], opacity: [[2.6, 0], [2.7, 1]] },
        subImg && { name: "subheadline", image: subImg, x: 540, y: subY, opacity: [[3.2, 0], [3.9, 1]] },
        priceImg && { name: "price", image: priceImg, x: 540, y: priceY, opacity: [[3.8, 0], [4.5, 1]] },
        { name: "cta", image: ctaImg, x: 540, y: [[4.6, ctaY + 20], [5.4, ctaY, "out"]], opacity: [[4.6, 0], [5.3, 1]] },
      ],
    };
  },
});
