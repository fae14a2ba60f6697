// Template "clean-card": a calm product card for marketplaces and feeds: soft colour, the product, its name and price.
import { darken, defineTemplate, fields, lighten, luminance, mix, readableOn, t, wave, type Asset, type BuildContext, type Box } from "../src/templates/api";

/** Where the product floats and where the white card with the words sits, per format (template pixels). */
function plan(ctx: BuildContext<unknown>, cardH: number): { card: Box; stage: Box } {
  const S = ctx.safe;
  if (ctx.aspect === "16:9") {
    // Landscape: product on the left, the card beside it on the right, centred on the safe area's height.
    const card = { x: S.x + S.w - 860, y: S.y + (S.h - cardH) / 2, w: 860, h: cardH };
    return { card, stage: { x: 0, y: 0, w: card.x - 40, h: ctx.height } };
  }
  // Portrait and square: the card rests on the safe area's bottom, the product fills the room above it.
  const card = { x: S.x, y: S.y + S.h - cardH, w: S.w, h: cardH };
  const top = ctx.aspect === "9:16" ? 200 : 30;
  return { card, stage: { x: 0, y: top, w: ctx.width, h: card.y - 30 - top } };
}

export default defineTemplate({
  meta: {
    id: "clean-card",
    name: "Clean card",
    description: "A calm card for shops and feeds: soft colour, the product rising into place, its name, price and a small button.",
    translations: {
      tr: { name: "Sade kart", description: "Mağazalar ve akışlar için sakin bir kart: yumuşak renk, yükselerek yerine oturan ürün, adı, fiyatı ve küçük bir düğme." },
      de: { name: "Klare Karte", description: "Eine ruhige Karte für Shops und Feeds: sanfte Farbe, das Produkt gleitet an seinen Platz, Name, Preis und ein kleiner Button." },
      fr: { name: "Carte épurée", description: "Une carte sobre pour boutiques et fils d'actualité\u00a0: couleur douce, le produit qui vient se mettre en place, son nom, son prix et un petit bouton." },
      es: { name: "Tarjeta sencilla", description: "Una tarjeta tranquila para tiendas y feeds: color suave, el producto que se eleva hasta su sitio, su nombre, su precio y un pequeño botón." },
      ar: { name: "بطاقة بسيطة", description: "بطاقة هادئة للمتاجر ومنصات التواصل: لون ناعم، والمنتج يرتفع إلى مكانه، مع اسمه وسعره وزر صغير." },
      ja: { name: "クリーンカード", description: "ショップやフィード向けの落ち着いたカード。やわらかな色、定位置へせり上がる商品、商品名、価格、小さなボタン。" },
    },
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
    // The words sit on the white card: dark ink, the shop's text colour only when it reads on white.
    const cardFill = "#ffffff";
    const ink = p.colors?.text && luminance(p.colors.text) < 0.3 ? p.colors.text : luminance(primary) < 0.2 ? darken(primary, 0.3) : "#17202c";
    // The accent as small letters on the white card: deepened until it reaches 4.5:1 there (luminance 0.18 or less).
    let priceInk = accent;
    while (luminance(priceInk) > 0.18) priceInk = darken(priceInk, 0.1);
    const pad = 44;
    const inner = (ctx.aspect === "16:9" ? 860 : ctx.safe.w) - 2 * pad;

    const tag = ctx.text({ name: "tag", text: ctx.s("new"), size: 36, minSize: 36, weight: 700, maxWidth: inner, color: priceInk, uppercase: true, letterSpacing: 0.14 });
    const headline = (size: number, maxLines: number) => ctx.text({
      name: "headline", text: p.headline ?? ctx.product.name, font: "display", weight: 800, size, minSize: 64, maxWidth: inner, maxLines, color: ink, lineHeight: 1.0,
    });
    const price = p.price !== undefined ? ctx.text({ name: "price", text: ctx.price(p.price), font: "display", weight: 800, size: 64, minSize: 40, maxWidth: inner * 0.45, color: priceInk }) : null;
    const label = ctx.text({ name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 38, minSize: 36, weight: 700, maxWidth: inner - 80, maxLines: 2, color: readableOn(primary), align: "center", lineHeight: 1.1 });
    let [tagImg, nameImg, priceImg, labelImg] = await Promise.all([tag, headline(64, 5), price, label]);
    // At the floor on up to five lines the name is never cut; when that takes three lines or fewer it is set larger on
    // three (which then cannot be cut either: every picture made counts for the layout check).
    if (nameImg.lines <= 3) nameImg = await headline(76, 3);
    const cta = await pill(ctx, labelImg, primary);

    // Stack the card's contents; price and button share a row when they fit side by side.
    const gap = 26;
    const sideBySide = !priceImg || priceImg.w + 24 + cta.w <= inner;
    const rowH = sideBySide ? Math.max(priceImg?.h ?? 0, cta.h) : (priceImg?.h ?? 0) + 20 + cta.h;
    const cardH = pad + tagImg.h + 14 + nameImg.h + gap + rowH + pad;
    const { card, stage } = plan(ctx, cardH);
    const left = card.x + pad;
    const tagY = card.y + pad + tagImg.h / 2;
    const nameY = card.y + pad + tagImg.h + 14 + nameImg.h / 2;
    const rowTop = card.y + pad + tagImg.h + 14 + nameImg.h + gap;
    const priceY = rowTop + (sideBySide ? rowH / 2 : (priceImg?.h ?? 0) / 2);
    const ctaY = sideBySide ? rowTop + rowH / 2 : rowTop + (priceImg?.h ?? 0) + 20 + cta.h / 2;
    const ctaX = sideBySide && priceImg ? card.x + card.w - pad - cta.w : left;

    const discR = Math.min(stage.w, stage.h) * 0.5;
    const background = ctx.svg(
      `<defs>
        <linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${lighten(tint, 0.35)}"/><stop offset="1" stop-color="${tint}"/></linearGradient>
        <radialGradient id="disc" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#ffffff" stop-opacity="0.95"/><stop offset="0.7" stop-color="#ffffff" stop-opacity="0.55"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient>
      </defs>
      <rect width="${W}" height="${H}" fill="url(#bg)"/>
      <circle cx="${stage.x + stage.w / 2}" cy="${stage.y + stage.h / 2}" r="${discR}" fill="url(#disc)"/>`,
      W,
      H,
      "background",
      // Gradients only: drawn at half resolution and stretched to the frame, the same picture for a quarter of the cost.
      { detail: 0.5 },
    );
    const cardImg = ctx.group({
      name: "card", w: card.w, h: card.h,
      // The accent stroke sits over where the text starts: the left in left-to-right languages, the right in Arabic.
      svg: `<rect width="${card.w}" height="${card.h}" rx="28" fill="${cardFill}"/><rect x="${ctx.rtl ? card.w - pad - 120 : pad}" y="0" width="120" height="6" fill="${accent}"/>`,
      shadow: { x: 0, y: 0, w: card.w, h: card.h, radius: 28, blur: 18, dy: 8, opacity: 0.12, color: mix(tint, "#000000", 0.6) },
      items: [],
    });
    // The product drifts by 10 px a second or more (slower reads as a frozen picture), inside its stage.
    const drift = Math.max(30, Math.min(60, stage.h * 0.1));
    const product = ctx.productImage({ maxWidth: Math.min(640, stage.w * 0.8), maxHeight: Math.max(160, stage.h - 2 * drift - 30), shadow: { opacity: 0.3, blur: 0.04, offsetY: 0.04 } });
    const [bg, cardPic, prod] = await Promise.all([background, cardImg, product]);
    const cx = stage.x + stage.w / 2;
    const cy = stage.y + stage.h / 2;

    return {
      background: bg,
      layers: [
        // Seen from the first frame, and never still: after rising into place it keeps drifting up, swaying gently.
        { name: "product", image: prod, x: wave(cx, Math.min(30, stage.w * 0.05), 6), y: [[0, cy + drift], [1.0, cy + drift * 0.6, "out"], [7, cy - drift, "linear"]] },
        { name: "card", image: cardPic, x: card.x, y: [[0, card.y + 60], [1.0, card.y, "out"]], anchor: [0, 0], opacity: [[0, 0], [0.5, 1]] },
        { name: "tag", image: tagImg, x: left, y: tagY, anchor: [0, 0.5], opacity: [[1.0, 0], [1.3, 1]] },
        { name: "headline", image: nameImg, x: [[1.0, left + 40], [1.5, left, "out"]], y: nameY, anchor: [0, 0.5], opacity: [[1.0, 0], [1.4, 1]] },
        priceImg && { name: "price", image: priceImg, x: left, y: [[1.5, priceY + 20], [2.0, priceY, "out"]], anchor: [0, 0.5], opacity: [[1.5, 0], [1.8, 1]] },
        { name: "cta", image: cta, x: ctaX + cta.w / 2, y: ctaY, scale: [[2.0, 0.8], [2.5, 1, "back"]], opacity: [[2.0, 0], [2.2, 1]] },
      ],
    };
  },
});

/** The call to action: its label (which may take two lines) on a round-ended button; reports the label's size. */
async function pill(ctx: BuildContext<unknown>, label: Asset & { fontSize: number }, fill: string): Promise<Asset & { fontSize: number }> {
  const w = label.w + 80;
  const h = Math.max(label.h, label.fontSize) + 40;
  const button = await ctx.group({ name: "cta", w, h, svg: `<rect width="${w}" height="${h}" rx="${Math.min(h / 2, 44)}" fill="${fill}"/>`, items: [{ image: label, x: w / 2, y: h / 2 }] });
  return Object.assign(button, { fontSize: label.fontSize });
}
