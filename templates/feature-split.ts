// Template "feature-split": a split layout, the product on a colour panel, its selling points revealed one by one.
import { darken, defineTemplate, fields, firstSentence, lighten, luminance, mix, phrasesFrom, readableOn, t, wave, type Asset, type BuildContext, type Box } from "../src/templates/api";

/**
 * The split per format. Landscape: the panel fills the left, every word is in the column on the right. Portrait and
 * square: eyebrow and headline run across the top (`head`), then the panel on the left (down to the frame's foot, so
 * a bottom corner stays free for a logo) and the selling points, price and button in the column beside it.
 */
function plan(ctx: BuildContext<unknown>): { head: Box | null; column: Box; panelW: number } {
  const S = ctx.safe;
  if (ctx.aspect === "16:9") return { head: null, column: { x: 960, y: S.y, w: S.x + S.w - 960, h: S.h }, panelW: 860 };
  const colW = ctx.aspect === "9:16" ? 500 : ctx.aspect === "1:1" ? 640 : 560;
  return { head: { x: S.x, y: S.y, w: S.w, h: 0 }, column: { x: S.x + S.w - colW, y: S.y, w: colW, h: S.h }, panelW: S.x + S.w - colW - 40 };
}

export default defineTemplate({
  meta: {
    id: "feature-split",
    name: "Feature split",
    description: "Split layout: the product on a colour panel, up to four selling points revealed one by one, then price and call to action.",
    translations: {
      tr: { name: "Bölünmüş ekran", description: "Bölünmüş düzen: renkli panelde ürün, birer birer beliren en fazla dört öne çıkan özellik, ardından fiyat ve harekete geçirici mesaj." },
      de: { name: "Geteilte Ansicht", description: "Geteiltes Layout: das Produkt auf einer Farbfläche, bis zu vier Verkaufsargumente nacheinander eingeblendet, dann Preis und Handlungsaufforderung." },
      fr: { name: "Écran partagé", description: "Mise en page partagée\u00a0: le produit sur un panneau coloré, jusqu'à quatre atouts révélés un à un, puis le prix et l'appel à l'action." },
      es: { name: "Pantalla dividida", description: "Diseño dividido: el producto sobre un panel de color, hasta cuatro ventajas que aparecen una a una y, al final, el precio y la llamada a la acción." },
      ar: { name: "عرض المزايا", description: "تصميم مقسّم: المنتج على لوحة ملونة، وحتى أربع مزايا تظهر واحدة تلو الأخرى، ثم السعر ودعوة إلى الشراء." },
      ja: { name: "特長スプリット", description: "分割レイアウト。カラーパネル上の商品、順に現れる最大4つの特長、最後に価格と購入ボタン。" },
    },
    aspect: "16:9",
    duration: 12,
    credits: 2,
    posterAt: 10,
  },
  prompt: t.Object({
    headline: fields.headline(50),
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
    const H = ctx.height;
    const primary = p.colors?.primary ?? "#2f5d50";
    const accent = p.colors?.accent ?? "#f2b134";
    const paper = p.colors?.background ?? "#f6f3ec";
    const ink = p.colors?.text ?? readableOn(paper, "#1d2320", "#ffffff");
    // The eyebrow and price take the brand colour where it reads on the paper, the ink where it does not.
    const lightPaper = luminance(paper) > 0.45;
    const strong = lightPaper === luminance(primary) < 0.3 ? primary : ink;
    const { head, column, panelW } = plan(ctx);
    // The square is the tightest format: smaller gaps, and selling points on at most two lines.
    const square = ctx.aspect === "1:1";
    // Rendered text may overhang its box by a few pixels: boxes are planned a little inside the safe area.
    const wide = (head ? head.w : column.w) - 8;

    const headline = (size: number, maxLines: number) => ctx.text({
      name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size, minSize: 64, maxWidth: wide, maxLines, color: ink, lineHeight: 1.0,
    });
    let points = p.features ?? phrasesFrom(ctx.product.description, 4);
    if (points.length === 0) points = [firstSentence(ctx.product.description, 48) ?? ctx.s("premiumQuality")];
    const rows = featureRows(ctx, points.slice(0, 4), { width: column.w, square, accent, ink });
    const price = p.price !== undefined
      ? ctx.text({ name: "price", text: ctx.price(p.price), font: "display", weight: 900, size: square ? 48 : head ? 64 : 84, minSize: 40, maxWidth: column.w, color: strong })
      : null;
    const label = ctx.text({ name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 40, minSize: 36, weight: 700, maxWidth: column.w - 72, maxLines: 2, color: readableOn(primary), align: "center", lineHeight: 1.1 });
    const eyebrow = ctx.text({ name: "eyebrow", text: ctx.s("whyLoveIt"), size: 36, minSize: 36, weight: 700, maxWidth: wide, color: strong, uppercase: true, letterSpacing: 0.14 });
    let [brow, head1, rowImgs, priceImg, labelImg] = await Promise.all([eyebrow, headline(64, 5), rows, price, label]);
    // At the floor on up to five lines the headline is never cut; when that takes three lines or fewer it is set larger
    // on three (which then cannot be cut either: every picture made counts for the layout check).
    if (head1.lines <= 3) head1 = await headline(76, 3);
    const cta = await button(ctx, labelImg, primary, square ? 28 : 40);

    // Top to bottom: [name, picture, gap below]; the headline block sits in `head` (portrait) or the column (landscape).
    const gap = square ? { row: 4, head: 20, foot: 12 } : { row: 12, head: 32, foot: 28 };
    let top: [string, { h: number }, number][] = [["eyebrow", brow, 12], ["headline", head1, gap.head]];
    const side: [string, { h: number }, number][] = rowImgs.map((r, i) => [`feature-${i}`, r, gap.row] as [string, { h: number }, number]);
    const foot: [string, { h: number }, number][] = [...(priceImg ? [["price", priceImg, 16] as [string, { h: number }, number]] : []), ["cta", cta, 0]];
    const sum = (list: [string, { h: number }, number][]) => list.reduce((s, [, img, gap]) => s + img.h + gap, 0);
    // The eyebrow is the template's own word, not the shop's: it gives way when the shop's copy needs the room.
    if (sum(top) + sum(side) + gap.foot + sum(foot) > column.h) top = top.slice(1);
    const y: Record<string, number> = {};
    const place = (list: [string, { h: number }, number][], from: number) => {
      let cursor = from;
      for (const [key, img, gap] of list) {
        y[key] = cursor + img.h / 2;
        cursor += img.h + gap;
      }
      return cursor;
    };
    let panelTop = 0;
    if (head) {
      panelTop = place(top, head.y) - 12;
      place(side, panelTop + 12);
      place(foot, column.y + column.h - sum(foot));
    } else {
      // Landscape: the whole stack centred on the column's height, the price and button kept together at its foot.
      const total = sum(top) + sum(side) + gap.foot + sum(foot);
      place(foot, place(side, place(top, column.y + Math.max(0, (column.h - total) / 2))) + gap.foot);
    }
    const panelH = H - panelTop;

    const cx = panelW / 2;
    const cy = panelH / 2;
    const { background, panel } = backdrops(ctx, { paper, ink, accent, primary }, panelW, panelH);
    const product = ctx.productImage({ maxWidth: Math.min(600, panelW * 0.72), maxHeight: Math.min(720, panelH * 0.7), shadow: { opacity: 0.5, blur: 0.03, offsetY: 0.03 } });
    const [bg, panelImg, prod] = await Promise.all([background, panel, product]);
    const py = panelTop + cy;
    const drift = Math.max(40, Math.min(80, panelH * 0.1));
    const colX = head ? head.x : column.x;
    // Words rise into place (the column runs to the safe area's edge: a sideways slide would start outside it).
    const entrance = (name: string, at: number, x: number, image: Asset) => ({
      name, image, anchor: [0, 0.5] as [number, number], x,
      y: [[at, y[name]! + 24], [at + 0.5, y[name]!, "out"]] as [number, number, "out"?][], opacity: [[at, 0], [at + 0.4, 1]] as [number, number][],
    });

    return {
      background: bg,
      layers: [
        { name: "panel", image: panelImg, x: [[0, -panelW], [0.8, 0, "out"]], y: panelTop, anchor: [0, 0] },
        // Seen from the first frame, and never still: after settling it keeps drifting up, swaying gently.
        { name: "product", image: prod, x: wave(cx, Math.min(24, panelW * 0.06), 6), y: [[0.5, py + drift * 1.6], [1.5, py + drift, "out"], [12, py - drift, "linear"]], scale: [[0.5, 0.86], [1.5, 1, "out"]] },
        y.eyebrow !== undefined && { name: "eyebrow", image: brow, x: colX, y: y.eyebrow, anchor: [0, 0.5], opacity: [[1.0, 0], [1.4, 1]] },
        entrance("headline", 1.5, colX, head1),
        // Entrances on the half-second beats: one selling point a second, from 2.5 s.
        ...rowImgs.map((row, i) => entrance(`feature-${i}`, 2.5 + i, column.x, row)),
        priceImg && entrance("price", 7.0, column.x, priceImg),
        { name: "cta", image: cta, x: column.x, y: y.cta!, anchor: [0, 0.5], scale: [[7.5, 0.9], [8.0, 1, "out"]], opacity: [[7.5, 0], [7.8, 1]] },
      ],
    };
  },
});

/** The call to action: its label (up to two lines) on a rounded button; reports the label's size. */
async function button(ctx: BuildContext<unknown>, label: Asset & { fontSize: number }, fill: string, padY: number): Promise<Asset & { fontSize: number }> {
  const w = label.w + 72;
  const h = Math.max(label.h, label.fontSize) + padY;
  const face = await ctx.group({ name: "cta", w, h, svg: `<rect width="${w}" height="${h}" rx="18" fill="${fill}"/>`, items: [{ image: label, x: w / 2, y: h / 2 }] });
  return Object.assign(face, { fontSize: label.fontSize });
}

/** The paper (dots and an accent bar) and the colour panel the product stands on, panelW×panelH template pixels. */
function backdrops(ctx: BuildContext<unknown>, c: { paper: string; ink: string; accent: string; primary: string }, panelW: number, panelH: number) {
  const { paper, ink, accent, primary } = c;
  const W = ctx.width;
  const H = ctx.height;
  const cx = panelW / 2;
  const cy = panelH / 2;
  const background = ctx.svg(
    `<defs><pattern id="dots" width="36" height="36" patternUnits="userSpaceOnUse"><circle cx="3" cy="3" r="2.4" fill="${mix(paper, ink, 0.12)}"/></pattern></defs>
    <rect width="${W}" height="${H}" fill="${paper}"/>
    <rect x="${W - 420}" y="0" width="420" height="${H}" fill="url(#dots)" opacity="0.6"/>
    <rect x="${W - 560}" y="${H - 14}" width="560" height="14" fill="${accent}"/>`,
    W,
    H,
    "background",
  );
  const panel = ctx.svg(
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${lighten(primary, 0.12)}"/><stop offset="1" stop-color="${darken(primary, 0.3)}"/></linearGradient>
    <radialGradient id="l" cx="${cx}" cy="${cy}" r="${Math.max(panelW, panelH) * 0.5}" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#ffffff" stop-opacity="0.28"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient></defs>
    <rect width="${panelW}" height="${panelH}" fill="url(#g)"/>
    <rect width="${panelW}" height="${panelH}" fill="url(#l)"/>
    <circle cx="${cx}" cy="${cy}" r="${Math.min(panelW, panelH) * 0.38}" fill="none" stroke="#ffffff" stroke-opacity="0.18" stroke-width="2"/>
    <ellipse cx="${cx}" cy="${cy + panelH * 0.36}" rx="${panelW * 0.3}" ry="28" fill="#000000" opacity="0.18"/>`,
    panelW,
    panelH,
    "panel",
  );
  return { background, panel };
}

/** One group per selling point: a check mark and up to two (three in the tall formats) lines; reports the size. */
function featureRows(ctx: BuildContext<unknown>, points: string[], o: { width: number; square: boolean; accent: string; ink: string }) {
  const check = ctx.svg(
    `<circle cx="28" cy="28" r="28" fill="${o.accent}"/><path d="M16 29 L25 38 L41 19" fill="none" stroke="${readableOn(o.accent)}" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>`,
    56, 56, "check",
  );
  return Promise.all(
    points.slice(0, 4).map(async (text, i) => {
      const label = await ctx.text({ text, size: o.square ? 36 : 38, minSize: 36, weight: 600, maxWidth: o.width - 88, maxLines: o.square ? 2 : 3, color: o.ink, lineHeight: 1.0 });
      // Rows are as tall as their lines of type (not their ink), so the gaps between points look even.
      // Scripts with tall lines (Arabic) need more than the size says: never less than the label itself.
      const h = Math.max(60, label.lines * label.fontSize * 1.2 + 8, label.h + 8);
      const row = await ctx.group({ name: `feature-${i}`, w: o.width - 8, h, items: [{ image: await check, x: 28, y: h / 2 }, { image: label, x: 80, y: h / 2, anchor: [0, 0.5] }] });
      return Object.assign(row, { fontSize: label.fontSize });
    }),
  );
}
