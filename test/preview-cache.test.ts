// Template previews in bounded memory: the byte-bounded LRU itself (small bounds), and the preview route, which
// renders and keeps only supported languages, draws and keeps each format apart (?aspect_ratio=), and honours
// VITRIN_PREVIEW_CACHE_BYTES.
import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { PreviewCache } from "../src/templates";
import { startService, tempDir, type TestService } from "./helpers";

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

describe("PreviewCache", () => {
  test("the byte total never passes the bound: least recently used entries go first", () => {
    const cache = new PreviewCache(1000);
    for (let i = 0; i < 50; i++) {
      cache.set(`k${i}`, bytes(150 + (i % 7) * 40));
      expect(cache.bytes).toBeLessThanOrEqual(1000);
    }
    // The newest entry always stays; the oldest are gone.
    expect(cache.has("k49")).toBe(true);
    expect(cache.has("k0")).toBe(false);
  });

  test("reading an entry makes it the most recent, so it outlives later writes", () => {
    const cache = new PreviewCache(300);
    cache.set("a", bytes(100));
    cache.set("b", bytes(100));
    cache.set("c", bytes(100));
    expect(cache.get("a")).toBeDefined();
    cache.set("d", bytes(100));
    expect(cache.has("a")).toBe(true);
    expect(cache.has("b")).toBe(false);
    expect(cache.bytes).toBe(300);
  });

  test("replacing a key counts only its new bytes", () => {
    const cache = new PreviewCache(500);
    cache.set("a", bytes(400));
    cache.set("a", bytes(100));
    expect(cache.bytes).toBe(100);
    cache.delete("a");
    expect(cache.bytes).toBe(0);
    expect(cache.size).toBe(0);
  });

  test("an entry larger than the bound is not kept and evicts nothing", () => {
    const cache = new PreviewCache(100);
    cache.set("small", bytes(60));
    cache.set("huge", bytes(101));
    expect(cache.has("huge")).toBe(false);
    expect(cache.has("small")).toBe(true);
    expect(cache.bytes).toBe(60);
  });

  test("getOrMake makes a key once for callers at the same time, and forgets a failure", async () => {
    const cache = new PreviewCache(1000);
    let made = 0;
    const make = async () => {
      made++;
      await Bun.sleep(5);
      return bytes(10);
    };
    const [x, y] = await Promise.all([cache.getOrMake("k", make), cache.getOrMake("k", make)]);
    expect(made).toBe(1);
    expect(x).toBe(y);
    expect(await cache.getOrMake("k", make)).toBe(x);
    expect(made).toBe(1);
    await expect(cache.getOrMake("bad", () => Promise.reject(new Error("no ffmpeg")))).rejects.toThrow("no ffmpeg");
    expect(cache.has("bad")).toBe(false);
    expect(await cache.getOrMake("bad", make)).toHaveLength(10);
  });
});

describe("GET /v1/templates/:id/preview", () => {
  let t: TestService | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** An ffmpeg that notes each frame it is asked to pipe out and then runs the real one, so a test counts renders. */
  function countingFfmpeg(): { path: string; runs(): number } {
    dir = tempDir("vitrin-preview-ffmpeg-");
    const log = join(dir, "runs");
    const path = join(dir, "ffmpeg");
    // Only preview renders pipe a PNG out; the renderer's start-up probes (-version and the like) are not counted.
    writeFileSync(path, `#!/bin/sh\ncase "$*" in *image2pipe*) echo run >> '${log}';; esac\nexec ffmpeg "$@"\n`);
    chmodSync(path, 0o755);
    return { path, runs: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0) };
  }

  const preview = (token: string, language: string) =>
    t!.call("GET", `/v1/templates/spotlight/preview?language=${encodeURIComponent(language)}`, { token });

  test("unsupported language codes are 422s that render and keep nothing", async () => {
    const ffmpeg = countingFfmpeg();
    t = await startService({ VITRIN_FFMPEG_PATH: ffmpeg.path });
    const a = await t.newAccount();
    // Well-formed BCP 47 codes that no template has words for: each one used to render and stay cached.
    const codes = ["xx", "pt", "ru", "zh", "ko", "nl", "sv", "pl", "it", "hi", "qaa", "pt-BR", "zh-Hant-TW", "und"];
    for (const code of codes) {
      const res = await preview(a.token, code);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: string; details: { field: string }[]; supported_languages: string[] };
      expect(body.error).toBe("Validation failed");
      expect(body.details[0].field).toBe("language");
      expect(body.supported_languages).toEqual(["en", "tr", "de", "fr", "es", "ar", "ja"]);
    }
    expect(ffmpeg.runs()).toBe(0);
  });

  test("region and case variants of a supported language share one cached preview", async () => {
    const ffmpeg = countingFfmpeg();
    t = await startService({ VITRIN_FFMPEG_PATH: ffmpeg.path });
    const a = await t.newAccount();
    for (const code of ["tr", "tr-TR", "TR", "tr-tr"]) {
      const res = await preview(a.token, code);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
    }
    expect(ffmpeg.runs()).toBe(1);
    // A region of a language no template speaks is still refused.
    expect((await preview(a.token, "pt-BR")).status).toBe(422);
    expect(ffmpeg.runs()).toBe(1);
  });

  test("?aspect_ratio= draws the template in that format, kept apart per format; the template's own is the default", async () => {
    const ffmpeg = countingFfmpeg();
    t = await startService({ VITRIN_FFMPEG_PATH: ffmpeg.path });
    const a = await t.newAccount();
    const size = async (query: string) => {
      const res = await t!.call("GET", `/v1/templates/spotlight/preview${query}`, { token: a.token });
      expect([query, res.status]).toEqual([query, 200]);
      const png = new Uint8Array(await res.arrayBuffer());
      const view = new DataView(png.buffer);
      return [view.getUint32(16), view.getUint32(20)];
    };
    const own = await size("");
    const tall = await size("?aspect_ratio=9:16");
    const wide = await size("?aspect_ratio=16:9");
    expect(wide[0]).toBeGreaterThan(wide[1]);
    expect(tall[1]).toBeGreaterThan(tall[0]);
    // spotlight's own format is 9:16: the default and ?aspect_ratio=9:16 are one picture, rendered once.
    expect(own).toEqual(tall);
    expect(ffmpeg.runs()).toBe(2);
    const bad = await t.json("GET", "/v1/templates/spotlight/preview?aspect_ratio=2:1", { token: a.token });
    expect(bad.status).toBe(422);
    expect(bad.body.details[0]).toEqual({ field: "aspect_ratio", message: 'must be one of "9:16", "4:5", "1:1", "16:9"' });
  });

  test("VITRIN_PREVIEW_CACHE_BYTES=0 keeps nothing: each request renders again", async () => {
    const ffmpeg = countingFfmpeg();
    t = await startService({ VITRIN_FFMPEG_PATH: ffmpeg.path, VITRIN_PREVIEW_CACHE_BYTES: "0" });
    const a = await t.newAccount();
    expect((await preview(a.token, "de")).status).toBe(200);
    expect((await preview(a.token, "de")).status).toBe(200);
    expect(ffmpeg.runs()).toBe(2);
  });
});
