// @vitrin/plugin-kit: the slot contracts, plugin definitions, settings, commands and the host API, as types.
export type * from "./types/src/plugins/kit-types";
