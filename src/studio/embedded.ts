// The Studio's built files inside a compiled binary. From source this is null (the files are built on first use, see
// from-source.ts); scripts/build.ts replaces this module with one holding every file's bytes as base64.
export type EmbeddedStudioFile = { path: string; type: string; immutable: boolean; base64: string };

export const studioFiles: EmbeddedStudioFile[] | null = null;
