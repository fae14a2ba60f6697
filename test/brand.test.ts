// The brand kit (issue 20 point 9): PUT/GET /v1/brand with its checks, the logo stored and served as sent, the
// brand's colours under the video's own in what the renderer is given, and a real render showing the logo.
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { builtinPlugins } from "../plugins";
import { createFfmpegRenderer, optionsFrom, prepareRender, writeSampleProduct } from "../plugins/renderer-ffmpeg";
import { loadTemplates } from "../src/templates";
import { BUILTIN_TEMPLATES } from "../templates";
import { logoCorners } from "../plugins/renderer-ffmpeg/logo";
import { FONT_FILES } from "../plugins/renderer-ffmpeg/fonts";
import { definePlugin, type RenderRequest } from "../src/plugins";
import { SHIPPED_FONTS } from "../src/templates/api";
import { fetchStored, productPhoto, startService, tempDir, type TestService } from "./helpers";

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const dataUrl = (bytes: Uint8Array, type: string) => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;

/** A 200×100 logo: a pure green bar on a transparent ground (so its pixels are easy to find in a frame). */
async function logoPng(): Promise<Uint8Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect x="10" y="20" width="180" height="60" fill="#00ff00"/></svg>`;
  return new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
}

async function setup(opts: Parameters<typeof startService>[1] = {}, env: Record<string, string> = {}) {
  t = await startService(env, opts);
  const acct = await t.newAccount({ credits: 20 });
  return { t, acct };
}

describe("PUT and GET /v1/brand", () => {
  test("an account without a brand reads every field as null", async () => {
    const { t, acct } = await setup();
    const res = await t.json("GET", "/v1/brand", { token: acct.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: "brand", logo_url: null, logo: null, colors: { primary: null, secondary: null, background: null, text: null }, font: null, updated_at: null });
  });

  test("a brand put is read back the same, and a field left out keeps its value", async () => {
    const { t, acct } = await setup();
    const put = await t.json("PUT", "/v1/brand", {
      token: acct.token,
      body: { colors: { primary: "#112233", secondary: "#AABBCC", background: "#ffffff", text: "#000000" }, font: "Montserrat" },
    });
    expect(put.status).toBe(200);
    expect(put.body.colors).toEqual({ primary: "#112233", secondary: "#aabbcc", background: "#ffffff", text: "#000000" });
    expect(put.body.font).toBe("Montserrat");
    const again = await t.json("PUT", "/v1/brand", { token: acct.token, body: { font: "Inter" } });
    expect(again.body.colors.primary).toBe("#112233");
    expect((await t.json("GET", "/v1/brand", { token: acct.token })).body).toEqual(again.body);
  });

  test("null clears a field, and colors given replace all four", async () => {
    const { t, acct } = await setup();
    await t.json("PUT", "/v1/brand", { token: acct.token, body: { colors: { primary: "#112233", text: "#000000" }, font: "Inter" } });
    const res = await t.json("PUT", "/v1/brand", { token: acct.token, body: { colors: { secondary: "#445566" }, font: null } });
    expect(res.body.colors).toEqual({ primary: null, secondary: "#445566", background: null, text: null });
    expect(res.body.font).toBe(null);
  });

  test("one account's brand is not another's", async () => {
    const { t, acct } = await setup();
    await t.json("PUT", "/v1/brand", { token: acct.token, body: { font: "Inter" } });
    const other = await t.newAccount();
    expect((await t.json("GET", "/v1/brand", { token: other.token })).body.font).toBe(null);
  });

  test("needs an account token", async () => {
    const { t } = await setup();
    expect((await t.json("GET", "/v1/brand", { token: null })).status).toBe(401);
  });
});

describe("validation", () => {
  const refused = async (body: unknown) => {
    const { t, acct } = await setup();
    const res = await t.json("PUT", "/v1/brand", { token: acct.token, body });
    return res;
  };

  test("a colour that is not #rrggbb is 422 naming the field", async () => {
    const res = await refused({ colors: { primary: "red" } });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: "colors.primary", message: "must be a colour like #1a2b3c, or null to clear it" }]);
  });

  test("a font that is not shipped is 422 listing the shipped ones", async () => {
    const res = await refused({ font: "Comic Sans MS" });
    expect(res.status).toBe(422);
    expect(res.body.details).toEqual([{ field: "font", message: `must be one of the shipped fonts: ${SHIPPED_FONTS.join(", ")}` }]);
  });

  test("a logo that is not an image is refused as product images are (415)", async () => {
    const res = await refused({ logo: dataUrl(new TextEncoder().encode("GIF89a not really"), "image/gif") });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe("Unsupported image format");
    expect(res.body.field).toBe("logo");
  });

  test("a truncated logo is 422 naming the logo field", async () => {
    const png = await logoPng();
    const res = await refused({ logo: dataUrl(png.subarray(0, png.length - 40), "image/png") });
    expect(res.status).toBe(422);
    expect(res.body.details[0].field).toBe("logo");
  });

  test("an unknown field, at the top or among the colours, is 422", async () => {
    expect((await refused({ slogan: "hi" })).status).toBe(422);
    await t?.close();
    t = undefined;
    expect((await refused({ colors: { accent: "#112233" } })).status).toBe(422);
  });

  test("a logo of \"\" or colors that are not an object are 422s saying what the field takes", async () => {
    const logo = await refused({ logo: "" });
    expect(logo.body.details).toEqual([{ field: "logo", message: "must be an image URL or data: URL, or null to remove the logo" }]);
    await t?.close();
    t = undefined;
    const colors = await refused({ colors: 5 });
    expect(colors.body.details).toEqual([
      { field: "colors", message: "must be an object of colours (primary, secondary, background, text: each #rrggbb or null), or null to clear them" },
    ]);
  });
});

describe("a PUT that names no field", () => {
  test("{} and an empty body keep the brand as it is (200)", async () => {
    const { t, acct } = await setup();
    const set = await t.json("PUT", "/v1/brand", { token: acct.token, body: { colors: { primary: "#112233" }, font: "Inter" } });
    expect(set.status).toBe(200);
    t.clock.advance(1000);
    const empty = await t.json("PUT", "/v1/brand", { token: acct.token, body: {} });
    expect([empty.status, empty.body]).toEqual([200, set.body]);
    const none = await t.json("PUT", "/v1/brand", { token: acct.token, raw: "", headers: { "content-type": "application/json" } });
    expect([none.status, none.body]).toEqual([200, set.body]);
    expect((await t.json("GET", "/v1/brand", { token: acct.token })).body).toEqual(set.body);
  });

  test("{} on an account that never set a brand answers the empty brand", async () => {
    const { t, acct } = await setup();
    const res = await t.json("PUT", "/v1/brand", { token: acct.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ logo_url: null, font: null, updated_at: null });
  });

  test("colors: null clears all four colours and keeps the font", async () => {
    const { t, acct } = await setup();
    await t.json("PUT", "/v1/brand", { token: acct.token, body: { colors: { primary: "#112233", text: "#000000" }, font: "Inter" } });
    const res = await t.json("PUT", "/v1/brand", { token: acct.token, body: { colors: null } });
    expect(res.status).toBe(200);
    expect(res.body.colors).toEqual({ primary: null, secondary: null, background: null, text: null });
    expect(res.body.font).toBe("Inter");
  });
});

describe("the logo", () => {
  test("is stored as sent (a PNG keeps its alpha) and served at logo_url; null removes it", async () => {
    const { t, acct } = await setup();
    const png = await logoPng();
    const put = await t.json("PUT", "/v1/brand", { token: acct.token, body: { logo: dataUrl(png, "image/png") } });
    expect(put.status).toBe(200);
    expect(put.body.logo).toEqual({ content_type: "image/png", width: 200, height: 100 });
    const served = await fetchStored(t, put.body.logo_url);
    expect(served.status).toBe(200);
    const bytes = new Uint8Array(await served.arrayBuffer());
    expect(Buffer.from(bytes).equals(Buffer.from(png))).toBe(true);
    expect((await sharp(bytes).metadata()).hasAlpha).toBe(true);
    const cleared = await t.json("PUT", "/v1/brand", { token: acct.token, body: { logo: null } });
    expect(cleared.body.logo_url).toBe(null);
    expect((await fetchStored(t, put.body.logo_url)).status).toBe(404);
  });
});

test("the shipped fonts are the ffmpeg renderer's font files", () => {
  const files = FONT_FILES.map((f) => f.split("/").pop()!);
  for (const family of SHIPPED_FONTS) expect(files.some((f) => f.startsWith(`${family.replaceAll(" ", "")}_`))).toBe(true);
});

test("in 9:16 every corner a logo may take keeps clear of what Reels, TikTok and Shorts cover", () => {
  for (const c of logoCorners({ width: 1080, height: 1920 }, 220, 110)) {
    expect(c.y).toBeGreaterThanOrEqual(220);
    expect(c.y + c.height).toBeLessThanOrEqual(1920 - 420);
    expect(c.x).toBeGreaterThanOrEqual(0);
    expect(c.x + c.width).toBeLessThanOrEqual(1080 - 140);
  }
});

/** The real ffmpeg renderer, keeping a copy of every request it is given (what the videos domain prepared). */
function recordingRegistry(seen: RenderRequest[]) {
  return builtinPlugins().add(
    definePlugin({
      slot: "renderer",
      name: "recording",
      description: "The ffmpeg renderer, recording its requests (tests).",
      create: (ctx) => {
        const real = createFfmpegRenderer(optionsFrom({ ...ctx, settings: {} } as never));
        return { ...real, name: "recording", render: (req) => (seen.push(structuredClone({ ...req, signal: undefined, onProgress: undefined }) as never), real.render(req)) };
      },
    }),
  );
}

describe("videos use the brand", () => {
  async function videoWith(userPrompt: Record<string, unknown>) {
    const seen: RenderRequest[] = [];
    const { t, acct } = await setup({ registry: recordingRegistry(seen), renderScale: 0.25 }, { VITRIN_RENDERER: "recording" });
    await t.json("PUT", "/v1/brand", {
      token: acct.token,
      body: { logo: dataUrl(await logoPng(), "image/png"), colors: { primary: "#102030", secondary: "#405060", background: "#f0e0d0", text: "#111111" }, font: "Playfair Display" },
    });
    const product = await t.json("POST", "/v1/products", { token: acct.token, body: { name: "Mug", image_url: dataUrl(await productPhoto("jpeg", 400, 300), "image/jpeg") } });
    await t.runJobs();
    const video = await t.json("POST", "/v1/videos", { token: acct.token, body: { template_id: "clean-card", product_id: product.body.id, user_prompt: userPrompt } });
    expect(video.status).toBe(202);
    await t.runJobs();
    const done = await t.json("GET", `/v1/videos/${video.body.id}`, { token: acct.token });
    expect(done.body.status).toBe("completed");
    expect(seen).toHaveLength(1);
    return { req: seen[0], t, videoUrl: done.body.video_url as string };
  }

  /** The output pixels of a video's frame at `seconds` that are the logo's pure green, and their bounding box. */
  async function greenPixels(t: TestService, videoUrl: string, seconds: number) {
    const file = join(t.dir, "branded.mp4");
    writeFileSync(file, new Uint8Array(await (await fetchStored(t, videoUrl)).arrayBuffer()));
    const frame = join(t.dir, "frame.png");
    Bun.spawnSync(["ffmpeg", "-v", "error", "-ss", String(seconds), "-i", file, "-frames:v", "1", "-y", frame]);
    const { data, info } = await sharp(frame).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const box = { count: 0, left: Infinity, top: Infinity, right: -1, bottom: -1, width: info.width, height: info.height };
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const at = (y * info.width + x) * 3;
        if (data[at + 1]! > 200 && data[at]! < 90 && data[at + 2]! < 90) {
          box.count++;
          box.left = Math.min(box.left, x);
          box.right = Math.max(box.right, x);
          box.top = Math.min(box.top, y);
          box.bottom = Math.max(box.bottom, y);
        }
      }
    }
    return box;
  }

  test("the brand's colours reach the renderer (secondary as the template's accent), with its logo", async () => {
    const { req } = await videoWith({});
    expect(req.prompt.colors).toEqual({ primary: "#102030", accent: "#405060", background: "#f0e0d0", text: "#111111" });
    expect(req.logoPath).toEndWith("logo.png");
    expect(req.font).toBe("Playfair Display");
  }, 60_000);

  test("the logo's pixels are in the rendered video, in a corner inside the frame's margins", async () => {
    const { t, videoUrl } = await videoWith({});
    // The logo's 180×60 green bar, fitted into 220×110 template pixels and rendered at scale 0.25: ~50×16 pixels.
    const green = await greenPixels(t, videoUrl, 3);
    expect(green.count).toBeGreaterThan(500);
    expect(green.right - green.left).toBeLessThan(60);
    expect(green.bottom - green.top).toBeLessThan(25);
    // 56 template pixels of margin are 14 output pixels at this scale.
    expect(green.left).toBeGreaterThanOrEqual(12);
    expect(green.top).toBeGreaterThanOrEqual(12);
    expect(green.right).toBeLessThanOrEqual(green.width - 12);
    expect(green.bottom).toBeLessThanOrEqual(green.height - 12);
  }, 60_000);

  test("the video's own colours override the brand's", async () => {
    const { req } = await videoWith({ colors: { primary: "#ff0000" } });
    expect(req.prompt.colors).toEqual({ primary: "#ff0000", accent: "#405060", background: "#f0e0d0", text: "#111111" });
  }, 60_000);
});

test("the brand font sets the template's headline, and body text stays as the template set it", async () => {
  const templates = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
  const dir = tempDir();
  const product = await writeSampleProduct(dir, "en");
  const headlineOf = async (font?: string) => {
    const job = await prepareRender({ definition: templates.get("clean-card")!.definition, product, prompt: {}, language: "en", scale: 0.25, workDir: dir, font });
    const layerFiles = job.scene.layers.flatMap((l) => (l ? [l.image.path] : []));
    return { headline: await Bun.file(layerFiles.find((p) => p.includes("-headline"))!).bytes(), tag: await Bun.file(layerFiles.find((p) => p.includes("-tag"))!).bytes() };
  };
  const plain = await headlineOf();
  const again = await headlineOf();
  const branded = await headlineOf("Playfair Display");
  expect(Buffer.from(again.headline).equals(Buffer.from(plain.headline))).toBe(true);
  expect(Buffer.from(branded.headline).equals(Buffer.from(plain.headline))).toBe(false);
  // The tag is sans body text: unchanged.
  expect(Buffer.from(branded.tag).equals(Buffer.from(plain.tag))).toBe(true);
}, 30_000);
