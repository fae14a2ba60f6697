// The fonts vitrin ships (npm font packages, never the host's), made visible to sharp's text renderer (pango).
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { isEmbeddedPath, userTmpDir, userTmpPath } from "../../src/plugins";
import type { FontRole } from "../../src/plugins/renderer-kit";
import sharp from "../../src/plugins/sharp";
// `type: "file"` gives a path on disk in development and embeds the file in a `bun build --compile` binary.
import interRegular from "@expo-google-fonts/inter/400Regular/Inter_400Regular.ttf" with { type: "file" };
import interSemiBold from "@expo-google-fonts/inter/600SemiBold/Inter_600SemiBold.ttf" with { type: "file" };
import interBold from "@expo-google-fonts/inter/700Bold/Inter_700Bold.ttf" with { type: "file" };
import montserratBold from "@expo-google-fonts/montserrat/700Bold/Montserrat_700Bold.ttf" with { type: "file" };
import montserratExtraBold from "@expo-google-fonts/montserrat/800ExtraBold/Montserrat_800ExtraBold.ttf" with { type: "file" };
import montserratBlack from "@expo-google-fonts/montserrat/900Black/Montserrat_900Black.ttf" with { type: "file" };
import playfairRegular from "@expo-google-fonts/playfair-display/400Regular/PlayfairDisplay_400Regular.ttf" with { type: "file" };
import playfairItalic from "@expo-google-fonts/playfair-display/400Regular_Italic/PlayfairDisplay_400Regular_Italic.ttf" with { type: "file" };
import playfairBold from "@expo-google-fonts/playfair-display/700Bold/PlayfairDisplay_700Bold.ttf" with { type: "file" };
import arabicRegular from "@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf" with { type: "file" };
import arabicBold from "@expo-google-fonts/noto-sans-arabic/700Bold/NotoSansArabic_700Bold.ttf" with { type: "file" };
import jpRegular from "@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf" with { type: "file" };
import jpBold from "@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf" with { type: "file" };
import scBold from "@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf" with { type: "file" };
import serifJpRegular from "@expo-google-fonts/noto-serif-jp/400Regular/NotoSerifJP_400Regular.ttf" with { type: "file" };
import serifJpBold from "@expo-google-fonts/noto-serif-jp/700Bold/NotoSerifJP_700Bold.ttf" with { type: "file" };
import naskhRegular from "@expo-google-fonts/noto-naskh-arabic/400Regular/NotoNaskhArabic_400Regular.ttf" with { type: "file" };
import naskhBold from "@expo-google-fonts/noto-naskh-arabic/700Bold/NotoNaskhArabic_700Bold.ttf" with { type: "file" };
import hebrewRegular from "@expo-google-fonts/noto-sans-hebrew/400Regular/NotoSansHebrew_400Regular.ttf" with { type: "file" };
import hebrewBold from "@expo-google-fonts/noto-sans-hebrew/700Bold/NotoSansHebrew_700Bold.ttf" with { type: "file" };
import krRegular from "@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf" with { type: "file" };
import krBold from "@expo-google-fonts/noto-sans-kr/700Bold/NotoSansKR_700Bold.ttf" with { type: "file" };
import thaiRegular from "@expo-google-fonts/noto-sans-thai/400Regular/NotoSansThai_400Regular.ttf" with { type: "file" };
import thaiBold from "@expo-google-fonts/noto-sans-thai/700Bold/NotoSansThai_700Bold.ttf" with { type: "file" };
import devanagariRegular from "@expo-google-fonts/noto-sans-devanagari/400Regular/NotoSansDevanagari_400Regular.ttf" with { type: "file" };
import devanagariBold from "@expo-google-fonts/noto-sans-devanagari/700Bold/NotoSansDevanagari_700Bold.ttf" with { type: "file" };
// Colour emoji (CBDT bitmaps, drawn in colour by cairo): shops write emoji in their copy, and dropping them
// silently changed what the caller wrote; 25 MB of the binary is the price.
import colorEmoji from "@expo-google-fonts/noto-color-emoji/400Regular/NotoColorEmoji_400Regular.ttf" with { type: "file" };

const roleFamily: Record<FontRole, string> = { sans: "Inter", display: "Montserrat", serif: "Playfair Display" };

export const FONT_FILES: readonly string[] = [
  interRegular, interSemiBold, interBold,
  montserratBold, montserratExtraBold, montserratBlack,
  playfairRegular, playfairItalic, playfairBold,
  arabicRegular, arabicBold, jpRegular, jpBold, scBold,
  serifJpRegular, serifJpBold, naskhRegular, naskhBold,
  hebrewRegular, hebrewBold, krRegular, krBold, thaiRegular, thaiBold, devanagariRegular, devanagariBold,
  colorEmoji,
];

/** The pango family list for a role: pango falls back along it per character run (Arabic, kana, Han, Hangul…). */
export function familyList(role: FontRole, lang: string): string {
  const serif = role === "serif";
  const jp = serif ? "Noto Serif JP" : "Noto Sans JP";
  // Han characters are shared by Chinese, Japanese and Korean; the reader's language decides which shapes come first.
  const cjk = lang === "zh" ? `Noto Sans SC,${jp},Noto Sans KR` : lang === "ko" ? `Noto Sans KR,${jp},Noto Sans SC` : `${jp},Noto Sans SC,Noto Sans KR`;
  const arabic = serif ? "Noto Naskh Arabic,Noto Sans Arabic" : "Noto Sans Arabic";
  return `${roleFamily[role]},${arabic},Noto Sans Hebrew,Noto Sans Thai,Noto Sans Devanagari,${cjk},Noto Color Emoji`;
}

let ready: Promise<void> | null = null;

/** Makes the shipped fonts (and only them) available to sharp; runs once per process. */
export function ensureFonts(): Promise<void> {
  ready ??= setup().catch((e) => {
    ready = null;
    throw e;
  });
  return ready;
}


/** Where a font embedded in a compiled binary is copied out to (the binary's unpack child copies them there first). */
export function fontCopyPath(path: string): string {
  return join(userTmpPath("vitrin-fonts"), basename(path));
}

/** A real file for each font: fontconfig cannot read files embedded in a compiled binary, so those are copied out once. */
async function materialize(path: string): Promise<string> {
  if (!isEmbeddedPath(path) && existsSync(path)) return path;
  // Checked before anything in it is trusted or written: under /tmp another user could have made it first.
  userTmpDir("vitrin-fonts");
  const target = fontCopyPath(path);
  const source = Bun.file(path);
  // Compared by size before reading: in a binary, reading a font faults its pages of the executable into this
  // process's RSS for good, ~75 MB for all of them, which a process that finds them already copied need not carry.
  if (existsSync(target) && statSync(target).size === source.size) return target;
  const part = `${target}.${process.pid}.part`;
  writeFileSync(part, await source.bytes());
  // rename is atomic, so two processes copying the same font never leave half a file behind.
  (await import("node:fs")).renameSync(part, target);
  return target;
}

/**
 * Points fontconfig at a configuration with no font folders, so text never silently uses whatever fonts the host
 * has: renders look the same on every machine. Only works before the process's first text render, and only where
 * libc's setenv can be reached; otherwise host fonts merely stay available as a last fallback.
 */
function isolateFontconfig(): void {
  if (process.env.FONTCONFIG_FILE || process.platform !== "linux") return;
  try {
    const dir = userTmpDir("vitrin-fontconfig");
    mkdirSync(join(dir, "cache"), { recursive: true });
    const file = join(dir, "fonts.conf");
    writeFileSync(
      file,
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><cachedir>${join(dir, "cache")}</cachedir></fontconfig>\n`,
    );
    // process.env does not reach C's getenv in Bun, and fontconfig reads FONTCONFIG_FILE with getenv.
    const { dlopen, FFIType, ptr } = require("bun:ffi") as typeof import("bun:ffi");
    const libc = dlopen(process.platform === "linux" ? "libc.so.6" : "libc.dylib", {
      setenv: { args: [FFIType.ptr, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    });
    const name = Buffer.from("FONTCONFIG_FILE\0");
    const value = Buffer.from(`${file}\0`);
    libc.symbols.setenv(ptr(name), ptr(value), 0);
    libc.close();
    process.env.FONTCONFIG_FILE = file;
  } catch {
    // Not fatal: the shipped fonts are still registered below and come first in every family list.
  }
}

async function setup(): Promise<void> {
  isolateFontconfig();
  const files = await Promise.all(FONT_FILES.map(materialize));
  // libvips registers a `fontfile` with fontconfig once and keeps it for the process, so one tiny render each suffices.
  for (const fontfile of files) {
    await sharp({ text: { text: ".", fontfile, font: "sans 8", dpi: 72 } }).raw().toBuffer();
  }
}
