// A test-only template folder for the layout engine's tests: one 9:16 template whose geometry the prompt's `layout`
// picks (a fitting layout, a call to action in the strip apps cover, a headline over the product), so the tests do not
// depend on the built-in templates' geometry, which changes as they are redesigned.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { productPhoto, startService, type TestService } from "../helpers";

const TEMPLATE = `export default ({ defineTemplate, t, fields }) => defineTemplate({
  meta: { id: "layout-fixture", name: "Layout fixture", description: "Test-only geometry", aspect: "9:16", duration: 4, credits: 1 },
  prompt: t.Object({
    headline: fields.headline(80),
    call_to_action: fields.callToAction(40),
    layout: t.Optional(t.Union([t.Literal("ok"), t.Literal("edge"), t.Literal("overlap")])),
  }),
  async build(ctx) {
    // Counted, so tests can tell how often a request was laid out.
    globalThis.layoutFixtureBuilds = (globalThis.layoutFixtureBuilds ?? 0) + 1;
    const p = ctx.prompt;
    const layout = p.layout ?? "ok";
    const cx = ctx.safe.x + ctx.safe.w / 2;
    const product = await ctx.productImage({ maxWidth: 360, maxHeight: 360, shadow: false });
    const headline = await ctx.text({ name: "headline", text: p.headline ?? ctx.product.name, size: 96, maxWidth: 640, maxLines: 1, color: "#ffffff" });
    const cta = await ctx.button({ name: "cta", text: p.call_to_action ?? ctx.s("shopNow"), size: 40, color: "#111111", background: "#ffffff", maxWidth: 600 });
    const productY = ctx.safe.y + 220;
    return {
      background: await ctx.svg('<rect width="' + ctx.width + '" height="' + ctx.height + '" fill="#203040"/>', ctx.width, ctx.height),
      layers: [
        { name: "product", image: product, x: cx, y: productY },
        { name: "headline", image: headline, x: cx, y: layout === "overlap" ? productY : [[0.2, ctx.safe.y + 600], [0.8, ctx.safe.y + 560, "out"]], opacity: [[0.2, 0], [0.6, 1]] },
        { name: "cta", image: cta, x: cx, y: layout === "edge" ? ctx.height - 120 : ctx.safe.y + 760 },
      ],
    };
  },
});`;

/** A service whose templates include "layout-fixture", an account with credits, and a product (its cut-out made). */
export async function layoutService(env: Record<string, string> = {}): Promise<{ t: TestService; token: string; productId: string }> {
  const dir = mkdtempSync(join(tmpdir(), "vitrin-layout-templates-"));
  await Bun.write(join(dir, "layout-fixture.js"), TEMPLATE);
  const t = await startService({ VITRIN_TEMPLATE_DIRS: dir, ...env }, { renderScale: 0.25 });
  const acct = await t.newAccount({ credits: 5, language: "en" });
  const image = `data:image/jpeg;base64,${Buffer.from(await productPhoto("jpeg", 800, 600)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", description: "Hand glazed, 350 ml", image_url: image } });
  if (product.status !== 201 && product.status !== 202) throw new Error(`product create failed: ${product.status} ${JSON.stringify(product.body)}`);
  await t.runJobs();
  return { t, token: acct.token, productId: product.body.id as string };
}

/** How many times the fixture template has been built in this process (layout checks, previews and renders). */
export const fixtureBuilds = (): number => (globalThis as { layoutFixtureBuilds?: number }).layoutFixtureBuilds ?? 0;

/** Copy too long for the fixture's one-line headline even at the headline floor (64 px in 640 px). */
export const TOO_LONG = "Extraordinarily comfortable everyday running shoes for city streets";
