/** Easing of the segment that ends at a keyframe. */
export type Ease = "linear" | "in" | "out" | "inOut" | "back";
/** `[seconds, value, ease of the segment arriving here (default "inOut")]`. */
export type Keyframe = [time: number, value: number, ease?: Ease];
/** A ready ffmpeg expression in `t` (seconds) with its JavaScript twin (used for layout checks and tests). */
export type Expr = {
    expr: string;
    at(t: number): number;
};
/** A value over time: a constant, keyframes (held before the first and after the last), or an expression. */
export type Anim = number | Keyframe[] | Expr;
/** A number as ffmpeg expressions write it: four decimals at most, never "-0". */
export declare function ffmpegNumber(v: number): string;
/** Keyframes in time order; empty lists and non-numbers are refused with the keyframe named. */
export declare function sortedKeyframes(kfs: Keyframe[]): Keyframe[];
/** The value of an animation at a time, in JavaScript (mirrors the ffmpeg expression exactly). */
export declare function valueAt(anim: Anim, t: number): number;
/** The ffmpeg expression of an animation in `t`. */
export declare function exprOf(anim: Anim): string;
/** A sine wave around `center`: `amplitude` either side, one cycle every `period` seconds. */
export declare function wave(center: number, amplitude: number, period: number, phase?: number): Expr;
/** The sum of animations (e.g. an entrance plus a gentle float). */
export declare function sum(...anims: Anim[]): Expr;
