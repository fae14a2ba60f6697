// Whether a path names a file embedded in a compiled binary: Bun serves those under /$bunfs/ (B:\~BUN\ on Windows),
// and tools outside the process (ffmpeg, fontconfig, copyfile) cannot open them, so callers copy them out first.
export function isEmbeddedPath(path: string): boolean {
  return path.startsWith("/$bunfs") || path.startsWith("B:\\~BUN") || path.startsWith("B:/~BUN");
}
