// @vitrin/plugin-kit/templates: the template API (src/templates/api.ts) for templates in a folder (VITRIN_TEMPLATE_DIRS), as types.
export type * from "./types/src/templates/api";
