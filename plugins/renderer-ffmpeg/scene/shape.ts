// The shape of what a template's build() returned, checked before anything reads it: a slip (a `layerz` typo, a layer
// without a picture, a position left out) is said in the template's terms instead of failing deep in the renderer.
import type { Scene } from "../../../src/plugins/renderer-kit";

const isAsset = (x: unknown): boolean => !!x && typeof x === "object" && typeof (x as { path?: unknown }).path === "string";
const isAnim = (x: unknown): boolean =>
  typeof x === "number" || Array.isArray(x) || (!!x && typeof x === "object" && typeof (x as { expr?: unknown }).expr === "string");
const keysOf = (x: object) => Object.keys(x).join(", ") || "nothing";

/** Why `scene` is not a Scene (build() must return `{ background, layers: [...] }`), or null when it is one. */
export function sceneShapeProblem(scene: unknown): string | null {
  if (!scene || typeof scene !== "object" || Array.isArray(scene)) {
    return `build() must return a scene { background, layers: [...] }, not ${Array.isArray(scene) ? "an array" : String(scene)}`;
  }
  const s = scene as Record<string, unknown>;
  if (!Array.isArray(s.layers)) return `build() returned a scene without a "layers" array (it has: ${keysOf(s)})`;
  const bg = s.background as { image?: unknown } | undefined;
  if (!isAsset(bg) && !isAsset(bg?.image)) return "build() returned a scene whose background is not a picture made by ctx (ctx.svg, ctx.productImage…)";
  for (const [i, layer] of (s.layers as unknown[]).entries()) {
    if (layer === null || layer === false || layer === undefined) continue;
    const what = `layer ${i}${typeof (layer as { name?: unknown }).name === "string" ? ` ("${(layer as { name: string }).name}")` : ""}`;
    if (typeof layer !== "object") return `${what} of the scene is ${JSON.stringify(layer)}, not an object { image, x, y }`;
    const l = layer as Record<string, unknown>;
    if (!isAsset(l.image)) return `${what} of the scene has no "image" made by ctx (ctx.text, ctx.button, ctx.svg, ctx.productImage or ctx.group)`;
    for (const key of ["x", "y"]) if (!isAnim(l[key])) return `${what} of the scene has no "${key}" (a number, keyframes or an expression)`;
  }
  return null;
}

/** `scene` as a Scene, or an error saying what is wrong with it. */
export function checkedScene(scene: unknown): Scene {
  const problem = sceneShapeProblem(scene);
  if (problem) throw new Error(problem);
  return scene as Scene;
}
