// Scenes (a background and animated image layers) and their compilation into one ffmpeg filtergraph.
//
// Speed matters more than generality here: every image is decoded once and converted to the overlay's pixel format
// once; only layers that really change per frame (scale, rotation, fades) become frame streams, and only during
// the seconds they are shown. Movement is free: it is the overlay's x/y expressions.

/** A picture made for one render: `width`×`height` pixels at render scale, `w`×`h` in template pixels. */
export type Asset = { path: string; width: number; height: number; w: number; h: number };

/** Easing of the segment that ends at a keyframe. */
export type Ease = "linear" | "in" | "out" | "inOut" | "back";
/** `[seconds, value, ease of the segment arriving here (default "inOut")]`. */
export type Keyframe = [time: number, value: number, ease?: Ease];
/** A ready ffmpeg expression in `t` (seconds) with its JavaScript twin (used for layout checks and tests). */
export type Expr = { expr: string; at(t: number): number };
/** A value over time: a constant, keyframes (held before the first and after the last), or an expression. */
export type Anim = number | Keyframe[] | Expr;

export type Layer = {
  /** For error messages and layout reports. */
  name?: string;
  image: Asset;
  /** Where the anchor point sits, in template pixels (the full-size frame). */
  x: Anim;
  y: Anim;
  /** Which point of the image is placed at x/y, as fractions of its size (default the centre). */
  anchor?: [number, number];
  /** Size factor of the image; the image is made at its largest size, so keep this ≤ 1 for crisp pixels. */
  scale?: Anim;
  /** Clockwise rotation in degrees (costly per frame on big layers: keep spins short, via from/to). */
  rotate?: Anim;
  /** Fades: keyframes of 0 and 1 only, at most one fade in followed by one fade out. */
  opacity?: Keyframe[];
  /** Seconds during which the layer is shown (default: all of the video). */
  from?: number;
  to?: number;
  /** Right-to-left languages mirror x positions (default true); false keeps this layer where it is. */
  mirror?: boolean;
};

export type Background = Asset | { image: Asset; x?: Anim; y?: Anim; mirror?: boolean };
/** Layers are drawn in order (later on top); null/false entries are skipped, for optional parts. */
export type Scene = { background: Background; layers: (Layer | null | false | undefined)[] };

const present = (scene: Scene): Layer[] => scene.layers.filter((l): l is Layer => !!l);

export type CompileOptions = {
  /** Template frame size (template pixels). */
  templateWidth: number;
  templateHeight: number;
  /** Output frame size in pixels (even numbers). */
  width: number;
  height: number;
  scale: number;
  fps: number;
  /** First frame to produce (0 for a video; a later one for a single preview frame). */
  startFrame: number;
  /** Frames in the whole video. */
  frames: number;
  rtl: boolean;
};

export type CompiledGraph = { inputs: string[]; filter: string; output: string };

const num = (v: number) => {
  const r = Math.round(v * 10000) / 10000;
  return Object.is(r, -0) ? "0" : String(r);
};

const easeExpr: Record<Ease, (p: string) => string> = {
  linear: (p) => p,
  in: (p) => `pow(${p},3)`,
  out: (p) => `(1-pow(1-${p},3))`,
  inOut: (p) => `(${p}*${p}*(3-2*${p}))`,
  back: (p) => `(1+2.70158*pow(${p}-1,3)+1.70158*pow(${p}-1,2))`,
};
const easeJs: Record<Ease, (p: number) => number> = {
  linear: (p) => p,
  in: (p) => p ** 3,
  out: (p) => 1 - (1 - p) ** 3,
  inOut: (p) => p * p * (3 - 2 * p),
  back: (p) => 1 + 2.70158 * (p - 1) ** 3 + 1.70158 * (p - 1) ** 2,
};

function sorted(kfs: Keyframe[]): Keyframe[] {
  if (kfs.length === 0) throw new Error("keyframes must not be empty");
  for (const k of kfs) if (!Number.isFinite(k[0]) || !Number.isFinite(k[1])) throw new Error(`bad keyframe ${JSON.stringify(k)}`);
  return [...kfs].sort((a, b) => a[0] - b[0]);
}

/** The value of an animation at a time, in JavaScript (mirrors the ffmpeg expression exactly). */
export function valueAt(anim: Anim, t: number): number {
  if (typeof anim === "number") return anim;
  if (!Array.isArray(anim)) return anim.at(t);
  const k = sorted(anim);
  if (t <= k[0]![0]) return k[0]![1];
  for (let i = 1; i < k.length; i++) {
    const [t1, v1, ease] = k[i]!;
    const [t0, v0] = k[i - 1]!;
    if (t < t1) return v0 + (v1 - v0) * easeJs[ease ?? "inOut"](t1 > t0 ? (t - t0) / (t1 - t0) : 1);
  }
  return k[k.length - 1]![1];
}

/** The ffmpeg expression of an animation in `t`. */
export function exprOf(anim: Anim): string {
  if (typeof anim === "number") return num(anim);
  if (!Array.isArray(anim)) return `(${anim.expr})`;
  const k = sorted(anim);
  let out = num(k[k.length - 1]![1]);
  for (let i = k.length - 1; i >= 1; i--) {
    const [t1, v1, ease] = k[i]!;
    const [t0, v0] = k[i - 1]!;
    if (v1 === v0) {
      out = `if(lt(t,${num(t1)}),${num(v0)},${out})`;
      continue;
    }
    const p = t1 > t0 ? `clip((t-${num(t0)})/${num(t1 - t0)},0,1)` : "1";
    out = `if(lt(t,${num(t1)}),${num(v0)}+${num(v1 - v0)}*${easeExpr[ease ?? "inOut"](p)},${out})`;
  }
  return `if(lt(t,${num(k[0]![0])}),${num(k[0]![1])},${out})`;
}

export function isConstant(anim: Anim | undefined): boolean {
  if (anim === undefined || typeof anim === "number") return true;
  if (!Array.isArray(anim)) return false;
  return anim.every((k) => k[1] === anim[0]![1]);
}

const constantOf = (anim: Anim | undefined, fallback: number): number =>
  anim === undefined ? fallback : typeof anim === "number" ? anim : Array.isArray(anim) ? anim[0]![1] : anim.at(0);

/** A sine wave around `center`: `amplitude` either side, one cycle every `period` seconds. */
export function wave(center: number, amplitude: number, period: number, phase = 0): Expr {
  const w = (2 * Math.PI) / period;
  return {
    expr: `${num(center)}+${num(amplitude)}*sin(${num(w)}*t+${num(phase)})`,
    at: (t) => center + amplitude * Math.sin(w * t + phase),
  };
}

/** The sum of animations (e.g. an entrance plus a gentle float). */
export function sum(...anims: Anim[]): Expr {
  return { expr: anims.map((a) => `(${exprOf(a)})`).join("+"), at: (t) => anims.reduce<number>((acc, a) => acc + valueAt(a, t), 0) };
}

type Fade = { type: "in" | "out"; start: number; duration: number };

function fadesOf(layer: Layer): { fades: Fade[]; from?: number; to?: number } {
  if (!layer.opacity || layer.opacity.length === 0) return { fades: [] };
  const k = sorted(layer.opacity);
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

/** The frame span in which a layer is on screen, after its own from/to and its fades. */
export function visibleSpan(layer: Layer, duration: number): [number, number] {
  const f = fadesOf(layer);
  const from = Math.max(0, layer.from ?? 0, f.from ?? 0);
  const to = Math.min(duration, layer.to ?? duration, f.to ?? duration);
  return [from, to];
}

export type Placement = { name: string; x: number; y: number; width: number; height: number; visible: boolean };

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
function changing(anim: Anim | undefined): [number, number][] {
  if (anim === undefined || typeof anim === "number") return [];
  if (!Array.isArray(anim)) return [[-Infinity, Infinity]];
  const k = sorted(anim);
  const out: [number, number][] = [];
  for (let i = 1; i < k.length; i++) if (k[i]![1] !== k[i - 1]![1]) out.push([k[i - 1]![0], k[i]![0]]);
  return out;
}

const overlaps = (spans: [number, number][], a: number, b: number) => spans.some(([x, y]) => x < b && y > a);

/** A stretch of a layer's life drawn one way: as a frame stream (animated) or as one still frame. */
type Part = { from: number; to: number; stream: boolean; scale: Anim; rotate: Anim; fades: Fade[] };

/**
 * Splits a layer's life so per-frame work happens only while something changes: each animated stretch (entrance,
 * pop, fade-out) is a short frame stream; in between, the overlay repeats one prepared frame for free.
 */
function partsOf(layer: Layer, from: number, to: number, fades: Fade[]): Part[] {
  const scaleSpans = changing(layer.scale);
  const rotateSpans = changing(layer.rotate);
  const fadeSpans = fades.map((f) => [f.start, f.start + f.duration] as [number, number]);
  // Merge every span of change into windows (touching spans join; a frame or less apart is one window).
  const spans = [...scaleSpans, ...rotateSpans, ...fadeSpans]
    .map(([a, b]) => [Math.max(a, from), Math.min(b, to)] as [number, number])
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  const windows: [number, number][] = [];
  for (const [a, b] of spans) {
    const last = windows[windows.length - 1];
    if (last && a <= last[1] + 0.05) last[1] = Math.max(last[1], b);
    else windows.push([a, b]);
  }
  const parts: Part[] = [];
  const still = (a: number, b: number) => {
    const at = Number.isFinite(b) ? (a + b) / 2 : Number.isFinite(a) ? a + 1 : 0;
    if (b > a) parts.push({ from: a, to: b, stream: false, scale: valueAt(layer.scale ?? 1, at), rotate: valueAt(layer.rotate ?? 0, at), fades: [] });
  };
  let cursor = from;
  for (const [a, b] of windows) {
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

/** Turns a scene into ffmpeg inputs and a filtergraph whose output label is `output`. */
export function compileScene(scene: Scene, o: CompileOptions): CompiledGraph {
  const layers = present(scene);
  const bg = "path" in scene.background ? { image: scene.background as Asset } : scene.background;
  const plans = layers.map((layer) => {
    const { fades } = fadesOf(layer);
    const [from, to] = visibleSpan(layer, Infinity);
    return { layer, parts: partsOf(layer, from, to, fades).filter((p) => p.to > p.from) };
  });

  const inputs: string[] = [];
  const inputIndex = new Map<string, number>();
  const uses = new Map<number, number>();
  const input = (path: string, count: number) => {
    let i = inputIndex.get(path);
    if (i === undefined) {
      i = inputIndex.size;
      inputIndex.set(path, i);
      inputs.push("-i", path);
    }
    uses.set(i, (uses.get(i) ?? 0) + count);
    return i;
  };
  const bgIndex = input(bg.image.path, 1);
  const layerIndex = plans.map((p) => input(p.layer.image.path, p.parts.length));

  // An image used more than once is decoded and converted once, then split.
  const taken = new Map<number, number>();
  const split: string[] = [];
  const source = (i: number, pixfmt: string) => {
    const n = uses.get(i)!;
    if (n === 1) return `[${i}:v]format=${pixfmt},`;
    if (!taken.has(i)) split.push(`[${i}:v]format=${pixfmt},split=${n}${Array.from({ length: n }, (_, k) => `[s${i}_${k}]`).join("")}`);
    const k = taken.get(i) ?? 0;
    taken.set(i, k + 1);
    return `[s${i}_${k}]`;
  };

  const s = o.scale;
  const fps = o.fps;
  const clock = `loop=loop=-1:size=1,settb=1/${fps},setpts=N+${o.startFrame}`;
  const chains: string[] = [];

  // Frames only need composing while something changes; in between, the last composed frame is repeated by an
  // fps filter (a reference, not a copy), and the encoder sees identical frames it skips cheaply. A layer that
  // changes all the time (an endless ticker) is drawn after that repetition, so the layers under it are still
  // composed only when they change.
  const slack = 1.01 / fps;
  const begin = o.startFrame / fps;
  const end = (o.startFrame + o.frames) / fps;
  const windowsOf = (spans: [number, number][]): [number, number][] => {
    const merged: [number, number][] = [];
    for (const [a, b] of spans.map(([a, b]) => [a - slack, b + slack] as [number, number]).sort((x, y) => x[0] - y[0])) {
      const last = merged[merged.length - 1];
      if (last && a <= last[1] + slack) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    return merged;
  };
  const layerChanges = plans.map(({ layer, parts }) => {
    const spans: [number, number][] = [];
    for (const part of parts) {
      if (part.stream) spans.push([part.from, part.to]);
      spans.push([part.from, part.from]);
      if (Number.isFinite(part.to)) spans.push([part.to, part.to]);
    }
    const [from, to] = visibleSpan(layer, Infinity);
    for (const [a, b] of [...changing(layer.x), ...changing(layer.y)]) {
      if (Math.min(b, to) >= Math.max(a, from)) spans.push([Math.max(a, from), Math.min(b, to)]);
    }
    return spans;
  });
  const coversAll = (spans: [number, number][]) => windowsOf(spans).some(([a, b]) => a <= begin && b >= end);
  const bgChanges = [...changing(bg.x), ...changing(bg.y)];
  // Layers from `live` up are drawn on every frame; the ones below only when they change.
  let live = coversAll(bgChanges) ? 0 : layerChanges.findIndex(coversAll);
  if (live < 0) live = plans.length;
  const windows = windowsOf([...bgChanges, ...layerChanges.slice(0, live).flat()]);
  const select =
    live === 0
      ? ""
      : // The last frame is always composed too: the fps filter repeats frames only up to the last one it saw.
        `,trim=end_frame=${Math.max(1, o.frames - o.startFrame)},select='eq(n,0)+gte(n,${Math.max(0, o.frames - o.startFrame - 1)})${windows
          .filter(([a, b]) => b >= begin && a <= end)
          .map(([a, b]) => `+between(t,${num(a)},${Number.isFinite(b) ? num(b) : 1e9})`)
          .join("")}'`;
  const repeat = select ? `fps=${fps},` : "";

  // Background: converted (and mirrored) once, then repeated; an optional pan is a per-frame crop (no copy).
  const bgMirror = o.rtl && bg.mirror !== false;
  const panned = bg.x !== undefined || bg.y !== undefined;
  const bgFilters: string[] = [];
  if (bgMirror) bgFilters.push("hflip");
  if (!panned && (bg.image.width !== o.width || bg.image.height !== o.height)) bgFilters.push(`scale=${o.width}:${o.height}`);
  bgFilters.push(clock);
  if (panned) {
    const px = (a: Anim | undefined) => `trunc((${exprOf(a ?? 0)})*${num(s)}/2)*2`;
    const x = bgMirror ? `iw-${o.width}-${px(bg.x)}` : px(bg.x);
    bgFilters.push(`crop=w=${o.width}:h=${o.height}:x='clip(${x},0,iw-${o.width})':y='clip(${px(bg.y)},0,ih-${o.height})'`);
  }
  chains.push(`${source(bgIndex, "yuv420p")}${bgFilters.join(",")}${select}[b0]`);

  let base = "[b0]";
  let n = 0;
  plans.forEach(({ layer, parts }, li) => {
    if (li === live && repeat && li > 0) {
      chains.push(`${base}${repeat.slice(0, -1)}[r0]`);
      base = "[r0]";
    }
    const mirror = o.rtl && layer.mirror !== false;
    const rot = (deg: string) => (mirror ? `-(${deg})` : deg);
    const [ax, ay] = layer.anchor ?? [0.5, 0.5];
    const X = `(${exprOf(layer.x)})*${num(s)}`;
    const Y = `(${exprOf(layer.y)})*${num(s)}`;
    const x = mirror ? `${num(o.templateWidth * s)}-${X}-w*${num(1 - ax)}` : `${X}-w*${num(ax)}`;
    const y = `${Y}-h*${num(ay)}`;

    for (const part of parts) {
      const f: string[] = [];
      const scaleAnimated = part.stream && !isConstant(part.scale);
      const rotateAnimated = part.stream && !isConstant(part.rotate);
      const sc = constantOf(part.scale, 1);
      const rc = constantOf(part.rotate, 0);
      const rotated = rotateAnimated || Math.abs(rc) > 1e-6;
      // A big picture spins at half resolution and is scaled back up: rotation costs per pixel, and nobody sees
      // the lost detail while it turns.
      const half = rotateAnimated && layer.image.width * layer.image.height > 250_000 ? 2 : 1;
      // What does not change over time is done once, before the image becomes a stream.
      const pre = (scaleAnimated ? 1 : sc) / half;
      const pw = Math.max(2, Math.round((layer.image.width * pre) / 2) * 2);
      const ph = Math.max(2, Math.round((layer.image.height * pre) / 2) * 2);
      if (Math.abs(pre - 1) > 1e-6) f.push(`scale=${pw}:${ph}`);
      const diag = Math.ceil(Math.hypot(pw, ph) / 2) * 2;
      if (!rotateAnimated && rotated) f.push(`rotate=a='${rot(num(rc))}*PI/180':c=none:ow=${diag}:oh=${diag}`);
      const opts = [`x='${x}'`, `y='${y}'`, "format=yuv420"];
      if (part.stream) {
        f.push(clock);
        const bounds = [part.from > 0 ? `start=${num(part.from)}` : "", Number.isFinite(part.to) ? `end=${num(part.to)}` : ""].filter(Boolean);
        if (bounds.length) f.push(`trim=${bounds.join(":")}`);
        // Rotation first: it keeps one output size, and scale may then change the size every frame.
        if (rotateAnimated) f.push(`rotate=a='${rot(exprOf(part.rotate!))}*PI/180':c=none:ow=${diag}:oh=${diag}`);
        const iw = rotated ? diag : pw;
        const ih = rotated ? diag : ph;
        if (scaleAnimated) {
          const sx = `${half}*${exprOf(part.scale!)}`;
          f.push(`scale=w='max(2,trunc(${iw}*${sx}/2)*2)':h='max(2,trunc(${ih}*${sx}/2)*2)':eval=frame:flags=bilinear`);
        } else if (half > 1) {
          f.push(`scale=${iw * half}:${ih * half}:flags=bilinear`);
        }
        for (const fd of part.fades) f.push(`fade=t=${fd.type}:st=${num(fd.start)}:d=${num(fd.duration)}:alpha=1`);
        if (Number.isFinite(part.to)) opts.push("eof_action=pass");
      } else if (part.from > 0 || Number.isFinite(part.to)) {
        opts.push(`enable='gte(t,${num(part.from)})${Number.isFinite(part.to) ? `*lt(t,${num(part.to)})` : ""}'`);
      }
      const label = `[l${li}_${n}]`;
      const src = source(layerIndex[li]!, "yuva420p");
      chains.push(`${src}${f.length ? f.join(",") : "null"}${label}`);
      const out = `[b${++n}]`;
      chains.push(`${base}${label}overlay=${opts.join(":")}${out}`);
      base = out;
    }
  });
  chains.push(`${base}${live >= plans.length ? repeat : ""}setsar=1[vout]`);
  return { inputs, filter: [...split, ...chains].join(";\n"), output: "[vout]" };
}
