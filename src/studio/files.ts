// The Studio's files as served: each with its ETag and, when it compresses, a gzipped copy made once, so a request
// costs a map lookup. Where the files come from (the binary, a build from source, a test's own) is the caller's choice.
import type { Logger } from "../kernel";
import { studioFiles } from "./embedded";
import { buildFromSource } from "./from-source";
import type { StudioFile } from "./types";

export type PreparedFile = { body: Uint8Array; gzip: Uint8Array | null; etag: string; type: string; immutable: boolean };

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|manifest\+json)|image\/svg\+xml)/;

function prepare(file: StudioFile): PreparedFile {
  const etag = `"${new Bun.CryptoHasher("sha256").update(file.body).digest("hex").slice(0, 32)}"`;
  let gzip: Uint8Array | null = null;
  if (COMPRESSIBLE.test(file.type)) {
    const packed = Bun.gzipSync(file.body as Uint8Array<ArrayBuffer>, { level: 9 });
    if (packed.length < file.body.length) gzip = packed;
  }
  return { body: file.body, gzip, etag, type: file.type, immutable: file.immutable };
}

/** The files the binary carries, or a build of studio/ from source; which one is fixed when vitrin is built. */
export async function defaultStudioFiles(): Promise<StudioFile[]> {
  if (studioFiles) {
    return studioFiles.map((f) => ({ path: f.path, type: f.type, immutable: f.immutable, body: new Uint8Array(Buffer.from(f.base64, "base64")) }));
  }
  if (!buildFromSource) throw new Error("this build of vitrin carries no Studio files");
  return buildFromSource();
}

/**
 * The Studio's files, loaded once on first use (a build from source takes a moment, and an API-only caller never pays
 * it). A load that fails is logged and tried again on the next request.
 */
export function createStudioAssets(load: () => Promise<StudioFile[]>, logger: Logger) {
  let ready: Promise<Map<string, PreparedFile>> | null = null;
  const loadAll = async () => {
    const started = performance.now();
    const files = await load();
    logger.info("studio files ready", { files: files.length, ms: Math.round(performance.now() - started) });
    return new Map(files.map((f) => [f.path, prepare(f)]));
  };
  return {
    /** The prepared file at a path (`/index.html`, `/studio/assets/…`), or null. */
    async get(path: string): Promise<PreparedFile | null> {
      ready ??= loadAll().catch((err) => {
        ready = null;
        logger.error("could not load the Studio's files", { err });
        throw err;
      });
      return (await ready).get(path) ?? null;
    },
  };
}

export type StudioAssets = ReturnType<typeof createStudioAssets>;
