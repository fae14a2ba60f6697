// The words of the Studio folder: one built file, as studio/build.ts's buildStudio() gives it.
export type StudioFile = { path: string; body: Uint8Array; type: string; immutable: boolean };
