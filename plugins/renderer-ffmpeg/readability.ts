// The readable-colour pass (issue 20, point 3): every text of a scene is measured against the pixels actually behind
// its glyphs while it is fully shown, and a text that misses WCAG AA gets a panel beneath it that moves and fades with
// it, at the lowest opacity that reaches the threshold; the result is measured again to prove it.
import { rename } from "node:fs/promises";
import type { Layer, Scene } from "../../src/plugins/renderer-kit";
import type { AssetWriter } from "./assets";
import { backgroundCanvas, drawLayer, prefetchBackground, drawPicture, forEachCovered, placeLayer, PictureCache, shifted, WORK_SCALE, type Canvas, type Frame } from "./compose";
import { contrastOver, DECIDE, farthestOf, panelOpacity, parseColor, thresholdOf, type Ink } from "./contrast";
import { itemOf, recipeOf, rememberRecipe } from "./inks";
import { fadesOf, present } from "./scene/spans";

/** A panel aims at the threshold times MARGIN (a little above DECIDE, so it holds after video coding). */
const MARGIN = 1.15;
/** A glyph pixel counts when the (downscaled) glyph alpha is at least this. */
const GLYPH_ALPHA = 96;

/** What the pass found for one text: its worst contrast while fully shown, and the panel it got, if any. */
export type Verdict = { layer: string; text: number; color: string; ratio: number; threshold: number; panel?: { color: string; opacity: number } };

type Target = { layer: Layer; ink: Ink; index: number; times: number[] };
type Measured = { behind: number[]; ratio: number };

/** The moments a layer is fully shown: when its fade in ends, the middle of its stay, and before its fade out. */
export function fullyShown(layer: Layer, duration: number): number[] {
  const { fades, from, to } = fadesOf(layer);
  const fadeIn = fades.find((f) => f.type === "in");
  const fadeOut = fades.find((f) => f.type === "out");
  const a = Math.max(layer.from ?? 0, from ?? 0, fadeIn ? fadeIn.start + fadeIn.duration : 0);
  const b = Math.min(layer.to ?? duration, to ?? duration, fadeOut ? fadeOut.start : duration, duration) - 0.02;
  if (!(b > a)) return [];
  // On a grid of quarter seconds (inside the stay), so that texts shown together share one composition of the scene.
  const up = Math.min(b, Math.ceil(a * 4) / 4);
  const down = Math.max(up, Math.floor(b * 4) / 4);
  return [...new Set([up, Math.round((up + down) * 2) / 4, down])].filter((t) => t >= a && t <= b);
}

/** The texts of a scene that are judged against the scene (a button's label is judged against its own fill). */
function targetsOf(scene: Scene, duration: number): Target[] {
  const out: Target[] = [];
  for (const layer of present(scene)) {
    const times = fullyShown(layer, duration);
    (layer.image.ink ?? []).forEach((ink, index) => {
      if (!ink.on && parseColor(ink.color) && times.length) out.push({ layer, ink, index, times });
    });
  }
  return out;
}

/** The pixels (r, g, b) under a text's glyphs, on a canvas holding everything drawn before it (plus its group's own card). */
async function behindOf(canvas: Canvas, target: Target, t: number, frame: Frame, pictures: PictureCache, scale: number): Promise<number[]> {
  const { layer, ink } = target;
  const placed = placeLayer(layer, t, frame);
  // A group's own card is drawn in for the measure and taken out again (only the rows it touches are kept aside).
  const rows = [Math.max(0, Math.floor(placed.top * WORK_SCALE)), Math.min(canvas.height, Math.ceil(placed.bottom * WORK_SCALE) + 1)];
  const kept = ink.under ? canvas.data.slice(rows[0]! * canvas.width * 3, Math.max(rows[0]!, rows[1]!) * canvas.width * 3) : null;
  if (ink.under) drawPicture(canvas, { ...placed, opacity: 1 }, await pictures.get(ink.under, layer.image.w, layer.image.h), layer.image.w, layer.image.h);
  const under = canvas;
  const mask = await pictures.ofScale(ink.mask, scale);
  // The glyph mask sits at (left, top) render pixels inside the layer's picture: shift the picture point into it.
  const dx = ink.left / scale;
  const dy = ink.top / scale;
  const picture = shifted(placed, dx, dy);
  const out: number[] = [];
  forEachCovered(under, picture, mask, mask.width / WORK_SCALE, mask.height / WORK_SCALE, (o, i) => {
    if (mask.data[i + 3]! >= GLYPH_ALPHA) out.push(under.data[o]!, under.data[o + 1]!, under.data[o + 2]!);
  });
  if (kept) canvas.data.set(kept, rows[0]! * canvas.width * 3);
  return out;
}

/** Composes the scene at each moment a text is fully shown and measures every text against what is behind it. */
async function sweep(scene: Scene, frame: Frame, pictures: PictureCache, scale: number): Promise<Map<Ink, Measured>> {
  const targets = targetsOf(scene, frame.duration);
  const byLayer = new Map<Layer, Target[]>();
  for (const t of targets) byLayer.set(t.layer, [...(byLayer.get(t.layer) ?? []), t]);
  const times = [...new Set(targets.flatMap((t) => t.times))].sort((a, b) => a - b);
  const layers = present(scene);
  const found = new Map<Ink, Measured>();
  for (const t of times) {
    const last = layers.findLastIndex((l) => byLayer.get(l)?.some((x) => x.times.includes(t)));
    const canvas = await backgroundCanvas(scene.background, t, frame, pictures);
    // Only the part of the frame under the texts measured now is composed.
    const boxes = targets.filter((x) => x.times.includes(t)).map((x) => placeLayer(x.layer, t, frame));
    const edge = (v: number, round: (n: number) => number, max: number) => Math.max(0, Math.min(max, round(v * WORK_SCALE)));
    canvas.clip = [
      edge(Math.min(...boxes.map((b) => b.left)), Math.floor, canvas.width), edge(Math.min(...boxes.map((b) => b.top)), Math.floor, canvas.height),
      edge(Math.max(...boxes.map((b) => b.right)), Math.ceil, canvas.width), edge(Math.max(...boxes.map((b) => b.bottom)), Math.ceil, canvas.height),
    ];
    for (let i = 0; i <= last; i++) {
      const layer = layers[i]!;
      for (const target of byLayer.get(layer) ?? []) {
        if (!target.times.includes(t)) continue;
        const behind = await behindOf(canvas, target, t, frame, pictures, scale);
        const m = found.get(target.ink) ?? { behind: [], ratio: Infinity };
        for (const v of behind) m.behind.push(v);
        found.set(target.ink, m);
      }
      if (i < last) await drawLayer(canvas, layer, t, frame, pictures);
    }
  }
  for (const [ink, m] of found) m.ratio = contrastOver(parseColor(ink.color)!, Float64Array.from(m.behind));
  return found;
}

/** A rounded panel larger than a w×h box by px and py on each side, in a colour at an opacity (template pixels). */
function panelFor(writer: AssetWriter, w: number, h: number, pad: Pad, color: string, opacity: number, name: string) {
  const W = w + 2 * pad.x;
  const H = h + 2 * pad.y;
  const r = Math.min(Math.max(pad.x, pad.y, 4) * 1.2, H / 2, W / 2);
  return writer.svg(`<rect width="${W}" height="${H}" rx="${r}" fill="${color}" fill-opacity="${opacity.toFixed(3)}"/>`, W, H, name);
}

type Pad = { x: number; y: number };
type Box = { left: number; top: number; right: number; bottom: number };

/** The anchor in a picture grown by a pad on every side that keeps the original anchor point where it was. */
const grownAnchor = (anchor: [number, number] | undefined, w: number, h: number, pad: Pad): [number, number] => {
  const [ax, ay] = anchor ?? [0.5, 0.5];
  return [(pad.x + ax * w) / (w + 2 * pad.x), (pad.y + ay * h) / (h + 2 * pad.y)];
};

/** Where a text's glyph picture sits on the frame at a moment (template pixels; rotation ignored). */
async function inkBox(layer: Layer, ink: Ink, t: number, frame: Frame, pictures: PictureCache, scale: number): Promise<Box> {
  const p = placeLayer(layer, t, frame);
  const s = (p.right - p.left) / layer.image.w;
  const mask = await pictures.ofScale(ink.mask, scale);
  const left = p.left + (ink.left / scale) * s;
  const top = p.top + (ink.top / scale) * s;
  return { left, top, right: left + (mask.width / WORK_SCALE) * s, bottom: top + (mask.height / WORK_SCALE) * s };
}

/** The padding a panel may take without covering another text shown at the same time (it stops short of them). */
async function roomFor(scene: Scene, target: Target, pad: number, frame: Frame, pictures: PictureCache, scale: number): Promise<Pad> {
  const t = target.times[Math.floor(target.times.length / 2)]!;
  const own = await inkBox(target.layer, target.ink, t, frame, pictures, scale);
  const room = { x: pad, y: pad };
  for (const layer of present(scene)) {
    if (placeLayer(layer, t, frame).opacity <= 0) continue;
    for (const ink of layer.image.ink ?? []) {
      if (ink === target.ink) continue;
      const b = await inkBox(layer, ink, t, frame, pictures, scale);
      const acrossX = b.left < own.right && b.right > own.left;
      const acrossY = b.top < own.bottom && b.bottom > own.top;
      if (acrossX && acrossY) continue;
      const gapY = b.bottom <= own.top ? own.top - b.bottom : b.top - own.bottom;
      const gapX = b.right <= own.left ? own.left - b.right : b.left - own.right;
      // Another text beside or above/below: the panel stops a little short of it on that side.
      if (acrossX && gapY < pad) room.y = Math.min(room.y, Math.max(0, gapY - 2));
      else if (acrossY && gapX < pad) room.x = Math.min(room.x, Math.max(0, gapX - 2));
    }
  }
  return room;
}

type Fix = { target: Target; color: string; opacity: number; pad: Pad };

/**
 * Puts panels under a layer's failing texts: a layer of its own under a text layer, or items under the texts of a
 * group (all of them at once: the group is drawn again, and the old layer object is gone after that).
 */
async function addPanels(scene: Scene, writer: AssetWriter, pictures: PictureCache, layer: Layer, fixes: Fix[]): Promise<void> {
  const name = `${layer.name ?? "text"}-panel`;
  const at = scene.layers.indexOf(layer);
  const recipe = recipeOf(layer.image);
  const inGroup = fixes.map((f) => ({ ...f, item: itemOf(f.target.ink) }));
  if (recipe && inGroup.every((f) => f.item !== undefined)) {
    const items = [...recipe.items];
    // From the last item back, so the indexes of the earlier ones stay true.
    for (const f of inGroup.sort((a, b) => b.item! - a.item!)) {
      const it = recipe.items[f.item!]!;
      const image = await panelFor(writer, it.image.w, it.image.h, f.pad, f.color, f.opacity, name);
      items.splice(f.item!, 0, { ...it, image, anchor: grownAnchor(it.anchor, it.image.w, it.image.h, f.pad) });
    }
    const made = await writer.group({ ...recipe, items });
    // Drawn again into the old picture's file: checks that know the group by its path (layout.ts) still find it.
    await rename(made.path, layer.image.path);
    rememberRecipe(layer.image.path, { ...recipe, items });
    pictures.forget(layer.image.path);
    scene.layers[at] = { ...layer, image: { ...made, path: layer.image.path } };
    return;
  }
  const { w, h } = layer.image;
  const f = fixes[0]!;
  const image = await panelFor(writer, w, h, f.pad, f.color, f.opacity, name);
  // Everything but the picture and the anchor is the text's own: the panel moves, scales and fades exactly with it.
  scene.layers.splice(at, 0, { ...layer, name, image, anchor: grownAnchor(layer.anchor, w, h, f.pad) });
}

/**
 * Makes every text of the scene readable: measures, adds panels where a text misses its threshold, and measures again
 * (a panel changes what lies behind the texts drawn over it). Returns each text's final verdict.
 */
export async function makeReadable(scene: Scene, writer: AssetWriter, frame: Frame): Promise<Verdict[]> {
  const pictures = new PictureCache();
  const panels = new Map<string, { color: string; opacity: number }>();
  // Every picture decoded at once: libvips decodes them side by side, where one after another waits on each.
  await Promise.all([prefetchBackground(scene.background, frame, pictures), ...present(scene).flatMap((l) => [
    pictures.get(l.image.path, l.image.w, l.image.h),
    ...(l.image.ink ?? []).flatMap((k) => (k.on ? [] : [pictures.ofScale(k.mask, writer.scale), ...(k.under ? [pictures.get(k.under, l.image.w, l.image.h)] : [])])),
  ])]);
  let measured = await sweep(scene, frame, pictures, writer.scale);
  for (let round = 0; round < 2; round++) {
    const failing = targetsOf(scene, frame.duration).filter((t) => (measured.get(t.ink)?.ratio ?? Infinity) < thresholdOf(t.ink) * DECIDE);
    if (failing.length === 0) break;
    const byLayer = new Map<Layer, Fix[]>();
    for (const target of failing) {
      const color = farthestOf(target.ink.color);
      const behind = Float64Array.from(measured.get(target.ink)!.behind);
      const opacity = Math.min(1, panelOpacity(parseColor(target.ink.color)!, behind, parseColor(color)!, thresholdOf(target.ink) * MARGIN));
      const pad = await roomFor(scene, target, Math.max(8, target.ink.size * 0.3), frame, pictures, writer.scale);
      byLayer.set(target.layer, [...(byLayer.get(target.layer) ?? []), { target, color, opacity, pad }]);
      panels.set(keyOf(target), { color, opacity });
    }
    // In a second round (a panel changed what another text sits on) a text may get a second panel under the first.
    for (const [layer, fixes] of byLayer) await addPanels(scene, writer, pictures, layer, fixes);
    measured = await sweep(scene, frame, pictures, writer.scale);
  }
  return targetsOf(scene, frame.duration).map((t) => ({
    layer: t.layer.name ?? "text",
    text: t.index,
    color: t.ink.color,
    ratio: measured.get(t.ink)?.ratio ?? Infinity,
    threshold: thresholdOf(t.ink),
    panel: panels.get(keyOf(t)),
  }));
}

const keyOf = (t: Target) => `${t.layer.name ?? "text"}#${t.index}`;
