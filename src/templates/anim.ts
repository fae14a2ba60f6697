// Values over time in a template's scene: constants, keyframes with easing, and ffmpeg expressions (wave, sum), each
// with its ffmpeg expression in `t` and a JavaScript twin that gives the same value (for layouts and checks).

/** Easing of the segment that ends at a keyframe. */
export type Ease = "linear" | "in" | "out" | "inOut" | "back";
/** `[seconds, value, ease of the segment arriving here (default "inOut")]`. */
export type Keyframe = [time: number, value: number, ease?: Ease];
/** A ready ffmpeg expression in `t` (seconds) with its JavaScript twin (used for layout checks and tests). */
export type Expr = { expr: string; at(t: number): number };
/** A value over time: a constant, keyframes (held before the first and after the last), or an expression. */
export type Anim = number | Keyframe[] | Expr;

/** A number as ffmpeg expressions write it: four decimals at most, never "-0". */
export function ffmpegNumber(v: number): string {
  const r = Math.round(v * 10000) / 10000;
  return Object.is(r, -0) ? "0" : String(r);
}

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

/** Keyframes in time order; empty lists and non-numbers are refused with the keyframe named. */
export function sortedKeyframes(kfs: Keyframe[]): Keyframe[] {
  if (kfs.length === 0) throw new Error("keyframes must not be empty");
  for (const k of kfs) if (!Number.isFinite(k[0]) || !Number.isFinite(k[1])) throw new Error(`bad keyframe ${JSON.stringify(k)}`);
  return [...kfs].sort((a, b) => a[0] - b[0]);
}

/** The value of an animation at a time, in JavaScript (mirrors the ffmpeg expression exactly). */
export function valueAt(anim: Anim, t: number): number {
  if (typeof anim === "number") return anim;
  if (!Array.isArray(anim)) return anim.at(t);
  const k = sortedKeyframes(anim);
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
  const num = ffmpegNumber;
  if (typeof anim === "number") return num(anim);
  if (!Array.isArray(anim)) return `(${anim.expr})`;
  const k = sortedKeyframes(anim);
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

/** A sine wave around `center`: `amplitude` either side, one cycle every `period` seconds. */
export function wave(center: number, amplitude: number, period: number, phase = 0): Expr {
  const num = ffmpegNumber;
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
