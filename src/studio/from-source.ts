// Builds the Studio from studio/ when vitrin runs from source (once per process, on the first Studio request). In the
// compiled binary scripts/build.ts replaces this module with `null`: the binary carries the files it built.
import type { StudioFile } from "./types";

export const buildFromSource: (() => Promise<StudioFile[]>) | null = async () => (await import("../../studio/build.ts")).buildStudio();
