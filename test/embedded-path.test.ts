// isEmbeddedPath: the one test of "is this file inside the compiled binary" that the native layer, the renderer's
// fonts and its music all use.
import { expect, test } from "bun:test";
import { isEmbeddedPath } from "../src/plugins";

test("paths inside a compiled binary are embedded; files on disk are not", () => {
  expect(isEmbeddedPath("/$bunfs/root/music/bright-side.opus")).toBe(true);
  expect(isEmbeddedPath("B:\\~BUN\\root\\fonts\\Inter.ttf")).toBe(true);
  expect(isEmbeddedPath("B:/~BUN/root/fonts/Inter.ttf")).toBe(true);
  expect(isEmbeddedPath("/work/main/music/bright-side.opus")).toBe(false);
  expect(isEmbeddedPath("/tmp/$bunfs-like/file")).toBe(false);
});
