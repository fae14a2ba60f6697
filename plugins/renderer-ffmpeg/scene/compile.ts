// A scene compiled into one ffmpeg filtergraph.
//
// Speed matters more than generality here: every image is decoded once and converted to the overlay's pixel format
// once; only layers that really change per frame (scale, rotation, fades) become frame streams, and only during
// the seconds they are shown. Movement is free: it is the overlay's x/y expressions.
import { exprOf, ffmpegNumber as num, type Anim, type Asset, type Layer, type Scene } from "../../../src/plugins/renderer-kit";
import { changing, constantOf, fadesOf, isConstant, partsOf, present, visibleSpan, type Part } from "./spans";

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

type Plan = { layer: Layer; parts: Part[] };
type BackgroundPlan = { image: Asset; x?: Anim; y?: Anim; mirror?: boolean };

/** The ffmpeg inputs: each picture once, and a picture used more than once decoded and converted once, then split. */
function inputTable() {
  const inputs: string[] = [];
  const index = new Map<string, number>();
  const uses = new Map<number, number>();
  const taken = new Map<number, number>();
  const split: string[] = [];
  return {
    inputs,
    split,
    add(path: string, count: number): number {
      let i = index.get(path);
      if (i === undefined) {
        i = index.size;
        index.set(path, i);
        inputs.push("-i", path);
      }
      uses.set(i, (uses.get(i) ?? 0) + count);
      return i;
    },
    /** The start of a chain reading input `i` in a pixel format (its own split output when shared). */
    source(i: number, pixfmt: string): string {
      const n = uses.get(i)!;
      // The pictures are sRGB: converted with the BT.709 matrix into TV range, as the video is tagged (ffmpeg's own
      // conversion would use BT.601, which players of HD video do not assume, and the colours would shift).
      const convert = `scale=out_color_matrix=bt709:out_range=tv,format=${pixfmt}`;
      if (n === 1) return `[${i}:v]${convert},`;
      if (!taken.has(i)) split.push(`[${i}:v]${convert},split=${n}${Array.from({ length: n }, (_, k) => `[s${i}_${k}]`).join("")}`);
      const k = taken.get(i) ?? 0;
      taken.set(i, k + 1);
      return `[s${i}_${k}]`;
    },
  };
}

/** The moments at which a layer's picture changes: its animated parts, its entrances and exits, and its movement. */
function changesOf({ layer, parts }: Plan): [number, number][] {
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
}

/**
 * Frames only need composing while something changes; in between, the last composed frame is repeated by an fps
 * filter (a reference, not a copy), and the encoder sees identical frames it skips cheaply. A layer that changes all
 * the time (an endless ticker) is drawn after that repetition, so the layers under it are still composed only when
 * they change. Returns the first layer drawn on every frame (`live`), the select filter and the repeat filter.
 */
function frameSelection(plans: Plan[], bg: BackgroundPlan, o: CompileOptions): { live: number; select: string; repeat: string } {
  const slack = 1.01 / o.fps;
  const begin = o.startFrame / o.fps;
  const end = (o.startFrame + o.frames) / o.fps;
  const windowsOf = (spans: [number, number][]): [number, number][] => {
    const merged: [number, number][] = [];
    for (const [a, b] of spans.map(([a, b]) => [a - slack, b + slack] as [number, number]).sort((x, y) => x[0] - y[0])) {
      const last = merged[merged.length - 1];
      if (last && a <= last[1] + slack) last[1] = Math.max(last[1], b);
      else merged.push([a, b]);
    }
    return merged;
  };
  const layerChanges = plans.map(changesOf);
  const coversAll = (spans: [number, number][]) => windowsOf(spans).some(([a, b]) => a <= begin && b >= end);
  const bgChanges = [...changing(bg.x), ...changing(bg.y)];
  // Layers from `live` up are drawn on every frame; the ones below only when they change.
  let live = coversAll(bgChanges) ? 0 : layerChanges.findIndex(coversAll);
  if (live < 0) live = plans.length;
  const windows = windowsOf([...bgChanges, ...layerChanges.slice(0, live).flat()]);
  const select =
    live === 0
      ? ""
      : // The last frame and one past it are always composed: the fps filter repeats a frame only until the next one it
        // sees, so without a frame after the last it drops the last (every video was one frame short; -frames:v cuts).
        `,trim=end_frame=${Math.max(1, o.frames - o.startFrame) + 1},select='eq(n,0)+gte(n,${Math.max(0, o.frames - o.startFrame - 1)})${windows
          .filter(([a, b]) => b >= begin && a <= end)
          .map(([a, b]) => `+between(t,${num(a)},${Number.isFinite(b) ? num(b) : 1e9})`)
          .join("")}'`;
  return { live, select, repeat: select ? `fps=${o.fps},` : "" };
}

/** The background: converted (and mirrored) once, then repeated; an optional pan is a per-frame crop (no copy). */
function backgroundFilters(bg: BackgroundPlan, o: CompileOptions, clock: string): string[] {
  const bgMirror = o.rtl && bg.mirror !== false;
  const panned = bg.x !== undefined || bg.y !== undefined;
  const filters: string[] = [];
  if (bgMirror) filters.push("hflip");
  if (!panned && (bg.image.width !== o.width || bg.image.height !== o.height)) filters.push(`scale=${o.width}:${o.height}`);
  filters.push(clock);
  if (panned) {
    const px = (a: Anim | undefined) => `trunc((${exprOf(a ?? 0)})*${num(o.scale)}/2)*2`;
    const x = bgMirror ? `iw-${o.width}-${px(bg.x)}` : px(bg.x);
    filters.push(`crop=w=${o.width}:h=${o.height}:x='clip(${x},0,iw-${o.width})':y='clip(${px(bg.y)},0,ih-${o.height})'`);
  }
  return filters;
}

/** The filters of one part of a layer's life and the options of its overlay at (x, y). */
function partFilters(layer: Layer, part: Part, mirror: boolean, clock: string, x: string, y: string): { filters: string[]; overlay: string[] } {
  const f: string[] = [];
  const rot = (deg: string) => (mirror ? `-(${deg})` : deg);
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
  const overlay = [`x='${x}'`, `y='${y}'`, "format=yuv420"];
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
    if (Number.isFinite(part.to)) overlay.push("eof_action=pass");
  } else if (part.from > 0 || Number.isFinite(part.to)) {
    overlay.push(`enable='gte(t,${num(part.from)})${Number.isFinite(part.to) ? `*lt(t,${num(part.to)})` : ""}'`);
  }
  return { filters: f, overlay };
}

/** Where a layer's overlay puts its picture, as ffmpeg expressions of the picture's size (w, h) and time. */
function overlayPosition(layer: Layer, mirror: boolean, o: CompileOptions): { x: string; y: string } {
  const [ax, ay] = layer.anchor ?? [0.5, 0.5];
  const X = `(${exprOf(layer.x)})*${num(o.scale)}`;
  const Y = `(${exprOf(layer.y)})*${num(o.scale)}`;
  const x = mirror ? `${num(o.templateWidth * o.scale)}-${X}-w*${num(1 - ax)}` : `${X}-w*${num(ax)}`;
  return { x, y: `${Y}-h*${num(ay)}` };
}

/** Turns a scene into ffmpeg inputs and a filtergraph whose output label is `output`. */
export function compileScene(scene: Scene, o: CompileOptions): CompiledGraph {
  const bg: BackgroundPlan = "path" in scene.background ? { image: scene.background as Asset } : scene.background;
  const plans: Plan[] = present(scene).map((layer) => {
    const { fades } = fadesOf(layer);
    const [from, to] = visibleSpan(layer, Infinity);
    return { layer, parts: partsOf(layer, from, to, fades).filter((p) => p.to > p.from) };
  });
  const table = inputTable();
  const bgIndex = table.add(bg.image.path, 1);
  const layerIndex = plans.map((p) => table.add(p.layer.image.path, p.parts.length));

  const clock = `loop=loop=-1:size=1,settb=1/${o.fps},setpts=N+${o.startFrame}`;
  const { live, select, repeat } = frameSelection(plans, bg, o);
  const chains = [`${table.source(bgIndex, "yuv420p")}${backgroundFilters(bg, o, clock).join(",")}${select}[b0]`];
  let base = "[b0]";
  let n = 0;
  plans.forEach(({ layer, parts }, li) => {
    if (li === live && repeat && li > 0) {
      chains.push(`${base}${repeat.slice(0, -1)}[r0]`);
      base = "[r0]";
    }
    const mirror = o.rtl && layer.mirror !== false;
    const { x, y } = overlayPosition(layer, mirror, o);
    for (const part of parts) {
      const { filters, overlay } = partFilters(layer, part, mirror, clock, x, y);
      const label = `[l${li}_${n}]`;
      chains.push(`${table.source(layerIndex[li]!, "yuva420p")}${filters.length ? filters.join(",") : "null"}${label}`);
      const out = `[b${++n}]`;
      chains.push(`${base}${label}overlay=${overlay.join(":")}${out}`);
      base = out;
    }
  });
  // The graph ends with the video: without the trim, a scene with a layer drawn on every frame streams for ever (its
  // background loops), and a single frame's graph (the thumbnail) would rely on the caller's -frames:v alone.
  chains.push(`${base}${live >= plans.length ? repeat : ""}trim=end_frame=${Math.max(1, o.frames - o.startFrame)},setsar=1[vout]`);
  return { inputs: table.inputs, filter: [...table.split, ...chains].join(";\n"), output: "[vout]" };
}

/**
 * The graph ending in a still picture's colours: the scene is BT.709 TV range, a JPEG is read as BT.601 full range
 * and a PNG is RGB; ffmpeg's automatic conversion would assume BT.601 TV range and shift the colours.
 */
export function asStill(graph: CompiledGraph, kind: "jpeg" | "png"): CompiledGraph {
  const to = kind === "jpeg" ? ":out_color_matrix=bt601:out_range=pc,format=yuvj420p" : ",format=rgb24";
  return { inputs: graph.inputs, filter: `${graph.filter};\n${graph.output}scale=in_color_matrix=bt709:in_range=tv${to}[still]`, output: "[still]" };
}
