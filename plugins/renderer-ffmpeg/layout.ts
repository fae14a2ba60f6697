// The layout engine's check: every text and button, where it settles (end of each entrance or move, and the poster
// time), must lie inside the format's safe area, overlap no other text or button, the product itself (not its shadow)
// or the logo, and must have fitted without being cut short; each problem names the request field the layer shows.
import { ASPECT_SIZES, safeArea, shrinkFloor, sortedKeyframes, valueAt, type Aspect, type Layer, type Scene, type TextStyle } from "../../src/plugins/renderer-kit";
import type { LayoutProblem } from "../../src/plugins";
import { changing, layout, present, visibleSpan } from "./scene/spans";

type Rect = { x: number; y: number; w: number; h: number };

/** What the scene's pictures are, recorded while build() makes them (keyed by the picture's path). */
export type Made =
  | { kind: "text" | "button"; name: string; text: string; cut: boolean; maxLines: number; floor: number; fontSize?: number }
  | { kind: "product"; name: string; content: { w: number; h: number } }
  | { kind: "group"; children: { made: Made; box: Rect }[] };

/** A picture on screen at one moment, in template pixels after mirroring. */
type Element = { layer: number; kind: "text" | "button" | "product" | "logo"; name: string; text?: string; box: Rect; scrolls?: boolean };

export class LayoutLedger {
  readonly made = new Map<string, Made>();

  text(path: string, name: string, style: TextStyle, out: { cut?: boolean; fontSize: number }) {
    this.made.set(path, { kind: "text", name, text: style.text, cut: !!out.cut, maxLines: Math.max(1, Math.floor(style.maxLines ?? 1)), floor: shrinkFloor(style, name), fontSize: out.fontSize });
  }

  button(path: string, name: string, text: string, size: number, cut: boolean) {
    this.made.set(path, { kind: "button", name, text, cut, maxLines: 1, floor: shrinkFloor({ size, role: "body" }) });
  }

  product(path: string, content: { w: number; h: number }) {
    this.made.set(path, { kind: "product", name: "product", content });
  }

  /** A group's texts, buttons and products, with their boxes inside it (template pixels, mirrored as the group is). */
  group(path: string, o: { w: number; items: { image: { path: string; w: number; h: number }; x: number; y: number; anchor?: [number, number]; mirror?: boolean }[] }, rtl: boolean) {
    const children: { made: Made; box: Rect }[] = [];
    for (const item of o.items) {
      const made = this.made.get(item.image.path);
      if (!made) continue;
      const [ax, ay] = item.anchor ?? [0.5, 0.5];
      const mirror = rtl && item.mirror !== false;
      const x = mirror ? o.w - item.x : item.x;
      const left = x - item.image.w * (mirror ? 1 - ax : ax);
      children.push({ made, box: { x: left, y: item.y - item.image.h * ay, w: item.image.w, h: item.image.h } });
    }
    if (children.length) this.made.set(path, { kind: "group", children });
  }
}

export type LayoutFrame = { aspect: Aspect; width: number; duration: number; posterAt: number; rtl: boolean };

/** Prompt fields by the layer names templates give them. */
const FIELDS: Record<string, string> = {
  headline: "headline", subheadline: "subheadline", cta: "call_to_action", call_to_action: "call_to_action", button: "call_to_action",
  price: "price", "old-price": "old_price", old_price: "old_price", features: "features", feature: "features",
};
/** Where a field's text comes from when the prompt leaves it out. */
const DEFAULTS: Record<string, string> = { headline: "product.name", subheadline: "product.description", features: "product.description" };

/**
 * What the copy of a request says, to find the field a text shows when its layer's name does not tell; `prices` are
 * the prompt's prices as ctx.price() wrote them ("$999,999,999.99" for 999999999.99), since a text shows those words,
 * not the number.
 */
export type Copy = { prompt: Record<string, unknown>; product: { name: string; description: string | null }; prices?: { text: string; field: string }[] };

const same = (a: string, b: unknown) => typeof b === "string" && a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * The request field a text shows: by its layer's name (headline, cta, price…), else by its words (a prompt field,
 * a feature, a formatted price, the product's name or description), else the template's own words (`template_id`).
 */
export function fieldOf(name: string, text: string | undefined, copy: Copy): string {
  const { prompt, product } = copy;
  const key = FIELDS[name] ?? FIELDS[name.replace(/[-_]?\d+$/, "")];
  if (key) return prompt[key] !== undefined ? `user_prompt.${key}` : (DEFAULTS[key] ?? `user_prompt.${key}`);
  if (text === undefined) return "template_id";
  for (const [k, v] of Object.entries(prompt)) {
    if (same(text, v)) return `user_prompt.${k}`;
    if (Array.isArray(v) && v.some((item) => same(text, item))) return `user_prompt.${k}`;
  }
  // A formatted price, alone or inside a phrase ("Only $34.90").
  const price = copy.prices?.find((p) => p.text.trim() !== "" && text.includes(p.text.trim()));
  if (price) return `user_prompt.${price.field}`;
  if (same(text, product.name)) return "product.name";
  if (product.description && product.description.toLowerCase().includes(text.trim().toLowerCase()) && text.trim().length >= 3) return "product.description";
  return "template_id";
}

const TOLERANCE = 2;
function overlaps(a: Rect, b: Rect): boolean {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > TOLERANCE && h > TOLERANCE;
}
const inside = (a: Rect, safe: Rect) =>
  a.x >= safe.x - TOLERANCE && a.y >= safe.y - TOLERANCE && a.x + a.w <= safe.x + safe.w + TOLERANCE && a.y + a.h <= safe.y + safe.h + TOLERANCE;

/** The moments a layer is settled: after each of its moves and fades ends, and the poster time, while fully shown. */
export function settledMoments(layer: Layer, frame: LayoutFrame): number[] {
  const [from, to] = visibleSpan(layer, frame.duration);
  const spans = [layer.x, layer.y, layer.scale, layer.rotate, layer.opacity].flatMap((a) => (Array.isArray(a) ? changing(a) : []));
  const moments = [frame.posterAt, ...spans.map(([, b]) => b)];
  const opacity = (t: number) => (layer.opacity && layer.opacity.length ? valueAt(sortedKeyframes(layer.opacity), t) : 1);
  const moving = (t: number) => spans.some(([a, b]) => t > a + 1e-6 && t < b - 1e-6);
  const settled = moments.filter((t) => t >= from && t <= to && t <= frame.duration && opacity(t) >= 1 && !moving(t));
  // A layer that is never still (it moves all its life) is judged where it first shows in full.
  if (settled.length === 0 && to > from) settled.push(Math.min(to, Math.max(from, ...spans.map(([, b]) => b).filter((b) => b <= to))));
  return [...new Set(settled.map((t) => Math.round(t * 1000) / 1000))];
}

/** Every text, button, product and logo on screen at a time, with the boxes of groups' children resolved. */
function elementsAt(scene: Scene, ledger: LayoutLedger, frame: LayoutFrame, t: number): Element[] {
  const layers = present(scene);
  const placed = layout(scene, t, { templateWidth: frame.width, rtl: frame.rtl, duration: frame.duration });
  const out: Element[] = [];
  const add = (i: number, made: Made, box: Rect) => {
    if (made.kind === "product") {
      const cw = made.content.w * (box.w / Math.max(1e-6, layers[i]!.image.w));
      const ch = made.content.h * (box.h / Math.max(1e-6, layers[i]!.image.h));
      out.push({ layer: i, kind: "product", name: "product", box: { x: box.x + (box.w - cw) / 2, y: box.y + (box.h - ch) / 2, w: cw, h: ch } });
    } else if (made.kind !== "group") out.push({ layer: i, kind: made.kind, name: made.name, text: made.text, box });
  };
  placed.forEach((p, i) => {
    if (!p.visible) return;
    const layer = layers[i]!;
    const box = { x: p.x, y: p.y, w: p.width, h: p.height };
    const made = ledger.made.get(layer.image.path);
    if (layer.name === "logo" && !made) out.push({ layer: i, kind: "logo", name: "logo", box });
    else if (made?.kind === "group") {
      const s = p.width / Math.max(1e-6, layer.image.w);
      // A strip wider than the frame is a ticker: its words scroll through the side edges by design.
      const scrolls = p.width > frame.width;
      for (const c of made.children) {
        const child = { x: p.x + c.box.x * s, y: p.y + c.box.y * s, w: c.box.w * s, h: c.box.h * s };
        if (c.made.kind === "product") {
          const cw = c.made.content.w * s;
          const ch = c.made.content.h * s;
          out.push({ layer: i, kind: "product", name: "product", box: { x: child.x + (child.w - cw) / 2, y: child.y + (child.h - ch) / 2, w: cw, h: ch } });
        } else if (c.made.kind !== "group") out.push({ layer: i, kind: c.made.kind, name: c.made.name, text: c.made.text, box: child, scrolls });
      }
    } else if (made) add(i, made, box);
  });
  return out;
}

/**
 * Where a ticker's words may run: through the side edges by design, and, being a band along an edge rather than a
 * line to read still, up to the frame's top and foot; in 9:16 out of the strips the apps cover, like any text.
 */
function tickerBounds(frame: LayoutFrame, safe: Rect, box: Rect): Rect {
  if (frame.aspect === "9:16") return { ...safe, x: box.x, w: box.w };
  return { x: box.x, y: 0, w: box.w, h: ASPECT_SIZES[frame.aspect].height };
}

const what = (e: Element) => (e.kind === "product" ? "the product" : e.kind === "logo" ? "the brand logo" : `the ${e.name}`);

/**
 * The layout problems of a built scene (empty when every text fits and sits where it may). Worded for the shop that
 * sent the copy (shorten it), or, with `forAuthor`, for the template's author: the layer named, and a layer that
 * overlaps another is to be moved, since the sample copy is short already.
 */
export function layoutProblems(scene: Scene, ledger: LayoutLedger, frame: LayoutFrame, copy: Copy, forAuthor = false): LayoutProblem[] {
  const problems = new Map<string, LayoutProblem>();
  const report = (name: string, text: string | undefined, message: string, authorFix = "") => {
    const field = fieldOf(name, text, copy);
    const said = forAuthor ? `the layer "${name}" ${message.replace(/; shorten (the text|it)\.$/, authorFix || ".")}` : field === "template_id" ? `The template's ${name} ${message}` : message;
    problems.set(`${field}\u0000${said}`, { field, message: said });
  };
  // Safe areas are in the built scene's pixels; the elements are placed after mirroring, where the strip is on the right.
  const safe = safeArea(frame.aspect, false);
  for (const made of ledger.made.values()) {
    const texts = made.kind === "group" ? made.children.map((c) => c.made) : [made];
    for (const m of texts) {
      if ((m.kind === "text" || m.kind === "button") && m.cut) {
        const lines = m.maxLines === 1 ? "one line" : `${m.maxLines} lines`;
        report(m.name, m.text, `is too long: it does not fit in ${lines} at ${Math.round(m.floor)} px or more (the smallest legible size); shorten it.`, "; give it a wider box or more lines.");
      }
    }
  }
  present(scene).forEach((layer, i) => {
    for (const t of settledMoments(layer, frame)) {
      const all = elementsAt(scene, ledger, frame, t);
      // NaN compares false with everything, so a box of NaNs (a template reading a field that is not there) would
      // pass every rule below and only fail in the render: the template's own fault, said as such.
      for (const e of all.filter((x) => x.layer === i && ![x.box.x, x.box.y, x.box.w, x.box.h].every(Number.isFinite))) {
        const said = `The template's ${e.name} has a position or size that is not a number in the ${frame.aspect} format.`;
        problems.set(`template_id\u0000${said}`, { field: "template_id", message: said });
      }
      for (const e of all.filter((x) => x.layer === i && (x.kind === "text" || x.kind === "button"))) {
        const bounds = e.scrolls ? tickerBounds(frame, safe, e.box) : safe;
        if (!inside(e.box, bounds)) report(e.name, e.text, `leaves the safe area of the ${frame.aspect} format (text must stay clear of the edges and of what apps lay over the video).`);
        for (const o of all) {
          if (o === e || (o.layer === i && o.name === e.name) || !overlaps(e.box, o.box)) continue;
          report(e.name, e.text, `overlaps ${what(o)} in the ${frame.aspect} format; shorten the text.`, "; move it or make room for it in this format.");
        }
      }
    }
  });
  return [...problems.values()];
}
