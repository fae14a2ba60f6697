// Folders of this user's under the shared temp folder (native libraries when there is no home, fonts, fontconfig) are
// checked before use: one another user made first, a link, or one others may write to is refused with a clear line.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultNativeDir } from "../src/config";
import { userTmpDir, userTmpPath } from "../src/kernel";

let root: string;
let savedTmp: string | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "vitrin-user-tmp-"));
  savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = root;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  rmSync(root, { recursive: true, force: true });
});

test("a missing folder is made for this user alone (mode 0700), and found again", () => {
  const dir = userTmpDir("vitrin-fonts");
  expect(dir).toBe(join(root, `vitrin-fonts-${process.getuid!()}`));
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(userTmpDir("vitrin-fonts")).toBe(dir);
});

test("a link planted at the folder's name is refused, not followed", () => {
  const elsewhere = mkdtempSync(join(root, "elsewhere-"));
  symlinkSync(elsewhere, userTmpPath("vitrin-fonts"));
  expect(() => userTmpDir("vitrin-fonts")).toThrow("is not a folder (a link or a file)");
});

test("a folder others may write to is refused", () => {
  mkdirSync(userTmpPath("vitrin-fonts"));
  chmodSync(userTmpPath("vitrin-fonts"), 0o777);
  expect(() => userTmpDir("vitrin-fonts")).toThrow("may be written by other users");
});

test.skipIf(process.getuid?.() !== 0)("a folder another user made first is refused (needs root to make one)", () => {
  mkdirSync(userTmpPath("vitrin-fonts"), { mode: 0o700 });
  chownSync(userTmpPath("vitrin-fonts"), 65534, 65534);
  expect(() => userTmpDir("vitrin-fonts")).toThrow(`belongs to user 65534, not to this one (${process.getuid!()})`);
});

test("a home folder that does not exist is no home: the temp folder's is used, and the home is not made", () => {
  const missing = join(root, "nonexistent-home");
  expect(defaultNativeDir({ HOME: missing })).toBe(join(root, `vitrin-${process.getuid!()}`, "native"));
  expect(existsSync(missing)).toBe(false);
  const home = mkdtempSync(join(root, "home-"));
  expect(defaultNativeDir({ HOME: home })).toBe(join(home, ".cache", "vitrin", "native"));
});

test("without a home, the native libraries' folder is one of this user's own under the temp folder, checked", () => {
  expect(defaultNativeDir({ HOME: "/" })).toBe(join(root, `vitrin-${process.getuid!()}`, "native"));
  rmSync(userTmpPath("vitrin"), { recursive: true });
  symlinkSync(mkdtempSync(join(root, "planted-")), userTmpPath("vitrin"));
  expect(() => defaultNativeDir({ HOME: "/" })).toThrow("remove it, so vitrin can make its own");
});
