// The Studio's face: its files (from the binary, a build from source, or a caller's own) and the routes serving them.
export { createStudioAssets, defaultStudioFiles, type StudioAssets } from "./files";
export type { StudioFile } from "./types";
export { STUDIO_CSP, STUDIO_PAGES, studioCsp, studioNotFound, studioRoutes } from "./routes";
