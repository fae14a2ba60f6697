// What a compiled binary carries besides code: the native files and the model chunks. From source this is null;
// scripts/build.ts replaces this module with one that imports each file with `{ type: "file" }`.
export type EmbeddedFile = {
  /** The embedded path (under /$bunfs/ in a binary). */
  embedded: string;
  /** Where it goes under the unpack folder, mirroring node_modules so RPATH/RUNPATH still resolve. */
  path: string;
  size: number;
};

export type EmbeddedAddon = { name: string; addon: EmbeddedFile; libraries: EmbeddedFile[] };

export type EmbeddedModel = {
  version: string;
  size: number;
  /** The model's chunks in order, each with its byte range within the assembled file. */
  chunks: { embedded: string; hash: string; offsets: [number, number] }[];
};

export type Embedded = {
  /** Changes with every set of embedded native files, so two builds never share an unpack folder. */
  buildId: string;
  addons: EmbeddedAddon[];
  model: EmbeddedModel | null;
};

export const embedded: Embedded | null = null;
