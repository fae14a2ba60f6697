// When each layer of a scene changes: its fades, its visible span, where it sits at a time, and the stretches of its
// life that must be drawn frame by frame (everything else is one prepared still frame the overlay repeats for free).
import { sortedKeyframes, valueAt, type Anim, type Layer, type Placement, type Scene } from "../../../src/plugins/renderer-kit";

/** The layers that are there (optional parts left out as null or false are skipped). */
export const present = (scene: Scene): Layer[] => scene.layers.filter((l): l is Layer => !!l);

export function isConstant(anim: Anim | undefined): boolean {
  if (anim === undefined || typeof anim === "number") return true;
  if (!Array.isArray(anim)) return false;
  return anim.every((k) => k[1] === anim[0]![1]);
}

export const constantOf = (anim: Anim | undefined, fallback: number): number =>
  anim === undefined ? fallback : typeof anim === "number" ? anim : Array.isArray(anim) ? anim[0]![1] : anim.at(0);

export type Fade = { type: "in" | "out"; start: number; duration: number };

export function fadesOf(layer: Layer): { fades: Fade[]; from?: number; to?: number } {
  if (!layer.opacity || layer.opacity.length === 0) return { fades: [] };
  const k = sortedKeyframes(layer.opacity);
  const fades: Fade[] = [];
  for (let i = 1; i < k.length; i++) {
    const [t0, v0] = k[i - 1]!;
    const [t1, v1] = k[i]!;
    if (v0 === v1) continue;
    fades.push({ type: v1 > v0 ? "in" : "out", start: t0, duration: Math.max(1e-3, t1 - t0) });
  }
  for (const [, v] of k) if (v !== 0 && v !== 1) throw new Error(`layer ${layer.name ?? "?"}: opacity keyframes must be 0 or 1`);
  const ins = fades.filter((f) => f.type === "in");
  const outs = fades.filter((f) => f.type === "out");
  if (ins.length > 1 || outs.length > 1 || (ins[0] && outs[0] && outs[0].start < ins[0].start)) {
    throw new Error(`layer ${layer.name ?? "?"}: opacity allows one fade in followed by one fade out`);
  }
  return {
    fades,
    from: k[0]![1] === 0 ? (ins[0]?.start ?? k[0]![0]) : undefined,
    to: k[k.length - 1]![1] === 0 ? (outs[0] ? outs[0].start + outs[0].duration : k[k.length - 1]![0]) : undefined,
  };
}

/** The span in which a layer is on screen, after its own from/to and its fades. */
export function visibleSpan(layer: Layer, duration: number): [number, number] {
  const f = fadesOf(layer);
  const from = Math.max(0, layer.from ?? 0, f.from ?? 0);
  const to = Math.min(duration, layer.to ?? duration, f.to ?? duration);
  return [from, to];
}

/** Where each layer's box sits at a time, in template pixels after mirroring: for layout checks and tests. */
export function layout(scene: Scene, t: number, opts: { templateWidth: number; rtl: boolean; duration: number }): Placement[] {
  return present(scene).map((layer, i) => {
    const mirror = opts.rtl && layer.mirror !== false;
    const s = valueAt(layer.scale ?? 1, t);
    const w = layer.image.w * s;
    const h = layer.image.h * s;
    const [ax, ay] = layer.anchor ?? [0.5, 0.5];
    const x = valueAt(layer.x, t);
    const left = mirror ? opts.templateWidth - x - w * (1 - ax) : x - w * ax;
    const [from, to] = visibleSpan(layer, opts.duration);
    return { name: layer.name ?? `layer${i}`, x: left, y: valueAt(layer.y, t) - h * ay, width: w, height: h, visible: t >= from && t <= to };
  });
}

/** Time spans in which an animation changes value (keyframe segments between different values). */
export function changing(anim: Anim | undefined): [number, number][] {
  if (anim === undefined || typeof anim === "number") return [];
  if (!Array.isArray(anim)) return [[-Infinity, Infinity]];
  const k = sortedKeyframes(anim);
  const out: [number, number][] = [];
  for (let i = 1; i < k.length; i++) if (k[i]![1] !== k[i - 1]![1]) out.push([k[i - 1]![0], k[i]![0]]);
  return out;
}

const overlaps = (spans: [number, number][], a: number, b: number) => spans.some(([x, y]) => x < b && y > a);

/** A stretch of a layer's life drawn one way: as a frame stream (animated) or as one still frame. */
export type Part = { from: number; to: number; stream: boolean; scale: Anim; rotate: Anim; fades: Fade[] };

/** Spans of change merged into windows: touching spans join, and so do spans a frame or less apart. */
function changeWindows(layer: Layer, from: number, to: number, fades: Fade[]): [number, number][] {
  const fadeSpans = fades.map((f) => [f.start, f.start + f.duration] as [number, number]);
  const spans = [...changing(layer.scale), ...changing(layer.rotate), ...fadeSpans]
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as [number, number])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const windows: [number, number][] = [];
  for (const [a, b] of spans) {
    const last = windows[windows.length - 1];
    if (last && a <= last[1] + 0.05) last[1] = Math.max(last[1], b);
    else windows.push([a, b]);
  }
  return windows;
}

/**
 * Splits a layer's life so per-frame work happens only while something changes: each animated stretch (entrance,
 * pop, fade-out) is a short frame stream; in between, the overlay repeats one prepared frame for free.
 */
export function partsOf(layer: Layer, from: number, to: number, fades: Fade[]): Part[] {
  const scaleSpans = changing(layer.scale);
  const rotateSpans = changing(layer.rotate);
  const parts: Part[] = [];
  const still = (a: number, b: number) => {
    const at = Number.isFinite(b) ? (a + b) / 2 : Number.isFinite(a) ? a + 1 : 0;
    if (b > a) parts.push({ from: a, to: b, stream: false, scale: valueAt(layer.scale ?? 1, at), rotate: valueAt(layer.rotate ?? 0, at), fades: [] });
  };
  let cursor = from;
  for (const [a, b] of changeWindows(layer, from, to, fades)) {
    still(cursor, a);
    parts.push({
      from: a,
      to: b,
      stream: true,
      scale: overlaps(scaleSpans, a, b) ? (layer.scale ?? 1) : valueAt(layer.scale ?? 1, a),
      rotate: overlaps(rotateSpans, a, b) ? (layer.rotate ?? 0) : valueAt(layer.rotate ?? 0, a),
      fades: fades.filter((f) => f.start < b && f.start + f.duration > a),
    });
    cursor = b;
  }
  still(cursor, to);
  return parts;
}
