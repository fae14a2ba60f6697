// Template "minimal-luxe": quiet and elegant: ivory and gold, a serif name, the product rising slowly in an arch.
import { darken, defineTemplate, fields, firstSentence, lighten, luminance, mix, readableOn, sum, t, wave, type Asset, type BuildContext, type Box } from "../src/templates/api";

/**
 * Where the words (a centred column) and the arch go, per format: tall formats put the arch above the words, square
 * and landscape ones put it beside them. `column.h` is only known once the words are set, so it is passed in.
 */
function plan(ctx: BuildContext<unknown>, columnH: number): { column: Box; arch: Box } {
  const S = ctx.safe;
  if (ctx.aspect === "9:16" || ctx.aspect === "4:5") {
    const column = { x: S.x, y: S.y + S.h - columnH, w: S.w, h: columnH };
    const top = ctx.aspect === "9:16" ? 190 : 50;
    const h = column.y - 40 - top;
    const w = Math.min(S.w * 0.72, h * 0.72);
    return { column, arch: { x: S.x + (S.w - w) / 2, y: top, w, h } };
  }
  const colW = columnWidth(ctx);
  const column = { x: S.x + S.w - colW, y: S.y + (S.h - columnH) / 2, w: colW, h: columnH };
  const room = column.x - 40;
  const h = ctx.height - 2 * 70;
  const w = Math.min(room * 0.8, h * 0.72);
  return { column, arch: { x: (room - w) / 2 + 10, y: 70, w, h } };
}

const columnWidth = (ctx: BuildContext<unknown>) => (ctx.aspect === "1:1" ? 640 : ctx.aspect === "16:9" ? 900 : ctx.safe.w);

export default defineTemplate({
  meta: {
    id: "minimal-luxe",
    name: "Minimal luxe",
    description: "Quiet and elegant: ivory and gold, a serif name, the product rising slowly inside an arch, a discreet price.",
    translations: {
      tr: { name: "Minimal lüks", description: "Sakin ve zarif: fildişi ve altın, tırnaklı yazı tipinde ürün adı, bir kemerin içinde yavaşça yükselen ürün, gösterişsiz bir fiyat." },
      de: { name: "Schlichter Luxus", description: "Ruhig und elegant: Elfenbein und Gold, ein Name in Serifenschrift, das Produkt steigt langsam unter einem Torbogen auf, ein dezenter Preis." },
      fr: { name: "Luxe épuré", description: "Calme et élégant\u00a0: ivoire et or, le nom en caractères à empattements, le produit qui s'élève lentement sous une arche, un prix discret." },
      es: { name: "Lujo minimalista", description: "Sereno y elegante: marfil y oro, el nombre en tipografía con serifas, el producto que asciende despacio dentro de un arco y un precio discreto." },
      ar: { name: "فخامة بسيطة", description: "هادئ وأنيق: عاجي وذهبي، واسم بخط مذيّل، والمنتج يرتفع ببطء داخل قوس، وسعر معروض بهدوء." },
      ja: { name: "ミニマル・ラグジュアリー", description: "静かで上品。アイボリーとゴールド、セリフ体の商品名、アーチの中でゆっくり浮かび上がる商品、控えめな価格。" },
    },
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
    call_to_action: fields.callToAction(28, "discover"),
    colors: fields.colors(),
  }),
  async build(ctx) {
    const p = ctx.prompt;
    const paper = p.colors?.background ?? "#f4eee4";
    const gold = p.colors?.accent ?? "#a8844a";
    const light = luminance(paper) > 0.45;
    const ink = p.colors?.text ?? readableOn(paper, "#2a241d", "#f7f1e6");
    // Gold as a line reads at any contrast; as small letters it is deepened (or lifted) until it reads on the paper.
    const goldInk = light ? darken(gold, 0.35) : lighten(gold, 0.45);
    const arch = p.colors?.primary ?? mix(paper, gold, 0.16);
    const colW = columnWidth(ctx);
    const tall = ctx.aspect === "9:16" || ctx.aspect === "4:5";
    const center = { align: "center" as const, maxWidth: colW };

    const headline = (size: number, maxLines: number) =>
      ctx.text({ name: "headline", text: p.headline ?? ctx.product.name, font: "serif", italic: true, size, minSize: 64, maxLines, color: ink, lineHeight: 0.98, ...center });
    const sub = p.subheadline ?? firstSentence(ctx.product.description, 70);
    let [brow, nameImg, subImg, priceImg, labelImg] = await Promise.all([
      ctx.text({ name: "eyebrow", text: ctx.s("newCollection"), size: 36, minSize: 36, weight: 600, color: goldInk, uppercase: true, letterSpacing: 0.24, ...center }),
      headline(64, 6),
      sub ? ctx.text({ name: "subheadline", text: sub, font: "serif", size: ctx.aspect === "1:1" ? 36 : 40, minSize: 36, maxLines: 4, color: mix(ink, paper, 0.2), lineHeight: 1.1, ...center }) : null,
      p.price !== undefined ? ctx.text({ name: "price", text: ctx.price(p.price), font: "serif", size: 58, minSize: 40, color: ink, ...center }) : null,
      ctx.text({
        name: "cta", text: p.call_to_action ?? ctx.s("discover"), size: 36, minSize: 36, weight: 600, color: ink, maxLines: 2, uppercase: true,
        letterSpacing: 0.14, lineHeight: 1.2, align: "center", maxWidth: Math.min(colW, 720) - 112,
      }),
    ]);
    // The name at the floor on up to six lines is never cut; when that takes three lines or fewer, it is set larger on
    // three (which then cannot be cut either). Every picture made counts for the layout check, so no attempt may fail.
    const atFloor = nameImg;
    if (atFloor.lines <= 3) nameImg = await headline(tall ? 96 : 84, 3);
    const cta = await frame(ctx, labelImg, mix(paper, "#ffffff", light ? 0.5 : 0.1), gold);

    // The column, top to bottom, with the air each piece keeps below it.
    let eyebrow = true;
    // The square's column is the shortest: its air is tighter.
    const air = ctx.aspect === "1:1" ? 0.5 : 1;
    const stack = (): [string, { h: number }, number][] => [
      ...(eyebrow ? [["eyebrow", brow, 30 * air] as [string, { h: number }, number]] : []), ["headline", nameImg, 34 * air], ["rule", { h: 3 }, 34 * air],
      ...(subImg ? [["subheadline", subImg, 30 * air] as [string, { h: number }, number]] : []),
      ...(priceImg ? [["price", priceImg, 36 * air] as [string, { h: number }, number]] : []),
      // Room under the button for its rise into place, which must stay inside the safe area too.
      ["cta", cta, 16],
    ];
    const heightOf = (list: ReturnType<typeof stack>) => list.reduce((total, [, img, gap]) => total + img.h + gap, 0);
    let parts = stack();
    // A large name that crowds the column (or the arch above it) goes back to the floor size.
    if (nameImg !== atFloor && heightOf(parts) > (tall ? ctx.safe.h - 460 : ctx.safe.h)) {
      nameImg = atFloor;
      parts = stack();
    }
    // The eyebrow is the template's own word, not the shop's: it gives way when the shop's copy needs the room.
    if (heightOf(parts) > ctx.safe.h) {
      eyebrow = false;
      parts = stack();
    }
    const columnH = heightOf(parts);
    const { column, arch: a } = plan(ctx, columnH);
    const y: Record<string, number> = {};
    let cursor = column.y;
    for (const [key, img, gap] of parts) {
      y[key] = cursor + img.h / 2;
      cursor += img.h + gap;
    }
    const cx = column.x + column.w / 2;

    const r = a.w / 2;
    const foot = a.y + a.h;
    const background = backdrop(ctx, a, { paper, gold, arch });
    const product = ctx.productImage({ maxWidth: a.w * 0.8, maxHeight: (a.h - 40) * 0.7, shadow: { opacity: 0.28, blur: 0.045, offsetY: 0.035 } });
    const rule = ctx.svg(`<rect width="220" height="3" fill="${gold}"/>`, 220, 3, "rule");
    const [bg, prod, ruleImg] = await Promise.all([background, product, rule]);
    // The product stands on the arch's floor and rises through the arch's headroom over the whole video, by 10 px a
    // second or more after its first ease (slower reads as a frozen picture).
    const rest = foot - 34 - prod.content.h / 2;
    const rise = Math.max(120, a.h * 0.2);
    // A slow circle on top of the rise: the product moves at an even speed, never pausing at the ends of a sway.
    const sway = Math.min(24, a.w * 0.08);

    return {
      background: bg,
      layers: [
        // Seen from the first frame, and never still: a slow rise over the whole video, circling gently.
        { name: "product", image: prod, x: wave(a.x + r, sway, 6), y: sum([[0, rest], [2.5, rest - rise * 0.3, "out"], [10, rest - rise, "linear"]], wave(0, sway, 6, Math.PI / 2)) },
        eyebrow && { name: "eyebrow", image: brow, x: cx, y: y.eyebrow!, opacity: [[1.0, 0], [1.5, 1]] },
        { name: "headline", image: nameImg, x: cx, y: [[1.5, y.headline! + 24], [2.5, y.headline!, "out"]], opacity: [[1.5, 0], [2.3, 1]] },
        { name: "rule", image: ruleImg, x: cx, y: y.rule!, scale: [[2.5, 0.02], [3.5, 1, "inOut"]], opacity: [[2.5, 0], [2.6, 1]] },
        subImg && { name: "subheadline", image: subImg, x: cx, y: y.subheadline!, opacity: [[3.0, 0], [3.7, 1]] },
        priceImg && { name: "price", image: priceImg, x: cx, y: y.price!, opacity: [[3.5, 0], [4.2, 1]] },
        // The call to action arrives by 4.5 s and stays to the last frame, in every format.
        { name: "cta", image: cta, x: cx, y: [[4.0, y.cta! + 16], [4.5, y.cta!, "out"]], opacity: [[4.0, 0], [4.5, 1]] },
      ],
    };
  },
});

/** The call to action: its label (up to two lines) in a thin gold frame on a pale panel; reports the label's size. */
async function frame(ctx: BuildContext<unknown>, label: Asset & { fontSize: number }, fill: string, line: string): Promise<Asset & { fontSize: number }> {
  const w = label.w + 112;
  const h = Math.max(label.h, label.fontSize) + 48;
  const svg = `<rect x="1.5" y="1.5" width="${w - 3}" height="${h - 3}" rx="4" fill="${fill}" stroke="${line}" stroke-width="3"/>`;
  const button = await ctx.group({ name: "cta", w, h, svg, items: [{ image: label, x: w / 2, y: h / 2 }] });
  return Object.assign(button, { fontSize: label.fontSize });
}

/** The ivory paper with its gold frame, and the arch `a` (its floor shadow and a gold outline). */
function backdrop(ctx: BuildContext<unknown>, a: Box, c: { paper: string; gold: string; arch: string }) {
  const { paper, gold, arch } = c;
  const W = ctx.width;
  const H = ctx.height;
  const r = a.w / 2;
  const foot = a.y + a.h;
  return ctx.svg(
    `<defs>
      <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${mix(paper, "#ffffff", 0.35)}"/><stop offset="1" stop-color="${mix(paper, gold, 0.1)}"/></linearGradient>
      <linearGradient id="arch" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${mix(arch, "#ffffff", 0.2)}"/><stop offset="1" stop-color="${arch}"/></linearGradient>
    </defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <path d="M${a.x} ${foot} L${a.x} ${a.y + r} A${r} ${r} 0 0 1 ${a.x + a.w} ${a.y + r} L${a.x + a.w} ${foot} Z" fill="url(#arch)"/>
    <path d="M${a.x - 24} ${foot + 24} L${a.x - 24} ${a.y + r} A${r + 24} ${r + 24} 0 0 1 ${a.x + a.w + 24} ${a.y + r} L${a.x + a.w + 24} ${foot + 24}" fill="none" stroke="${gold}" stroke-opacity="0.55" stroke-width="2"/>
    <rect x="24" y="24" width="${W - 48}" height="${H - 48}" fill="none" stroke="${gold}" stroke-opacity="0.6" stroke-width="2"/>
    <ellipse cx="${a.x + r}" cy="${foot - 28}" rx="${a.w * 0.36}" ry="18" fill="#000" opacity="0.10"/>`,
    W,
    H,
    "background",
  );
}
