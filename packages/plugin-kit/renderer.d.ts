// @vitrin/plugin-kit/renderer: what a renderer plugin uses of the templates (their definitions and scenes), as types.
export type * from "./types/src/plugins/renderer-kit";
