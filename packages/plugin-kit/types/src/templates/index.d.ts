export { loadTemplates, templateWords, type LoadedTemplate, type PromptProblem, type TemplateInfo, type TemplateRegistry } from "./registry";
export { ASPECT_SIZES, ASPECTS, fpsOf, renderSize, safeArea } from "./define";
export { BUILTIN_STRINGS, LANGUAGES, baseLanguage, currencyFor, formatPercent, formatPrice, isRtl, makeStrings, type Strings } from "./i18n";
export type { Placement } from "./scene";
export { exprOf, ffmpegNumber, sortedKeyframes } from "./anim";
export { PreviewCache, DEFAULT_PREVIEW_CACHE_BYTES } from "./preview-cache";
export * from "./api";
