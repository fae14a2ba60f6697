// A stored file asked for as a download (`/files/…?download=NAME`, the Studio's `Download` button): Content-Disposition
// names it as asked, made safe for file systems and kept to the file's own extension; without the question, none.
import { afterEach, describe, expect, test } from "bun:test";
import { attachment, downloadFileName } from "../src/plugins";
import { fetchStored, onS3, productPhoto, startService, type TestService } from "./helpers";

let t: TestService;
afterEach(async () => {
  await t?.close();
});

/** A product's stored photo, by the URL the API gives out. */
async function storedPhotoUrl(): Promise<string> {
  t = await startService();
  const { token } = await t.newAccount();
  const image = `data:image/png;base64,${Buffer.from(await productPhoto("png", 64, 48)).toString("base64")}`;
  const product = await t.json("POST", "/v1/products", { token, body: { name: "Mug", image_url: image, dekupe: false } });
  return product.body.original_image_url as string;
}

// vitrin's own /files route: on S3 the bucket serves the links (its presigned URLs cannot take another query).
(onS3 ? describe.skip : describe)("GET /files/…?download=", () => {
  test("names the download as asked, in ASCII and exactly in UTF-8, with the stored file's extension", async () => {
    const url = await storedPhotoUrl();
    const res = await fetchStored(t, `${url}?download=${encodeURIComponent("Kahve fincanı_Clean-card_9x16_tr")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="Kahve fincani_Clean-card_9x16_tr.png"; filename*=UTF-8''Kahve%20fincan%C4%B1_Clean-card_9x16_tr.png`,
    );
    expect(res.headers.get("content-type")).toBe("image/png");
  });

  test("a HEAD and a Range of a download carry the name too; a plain link has none", async () => {
    const url = await storedPhotoUrl();
    const head = await fetchStored(t, `${url}?download=mug`, { method: "HEAD" });
    expect(head.headers.get("content-disposition")).toStartWith(`attachment; filename="mug.png"`);
    const part = await fetchStored(t, `${url}?download=mug`, { headers: { range: "bytes=0-9" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-disposition")).toStartWith(`attachment; filename="mug.png"`);
    expect((await fetchStored(t, url)).headers.get("content-disposition")).toBeNull();
  });

  test("an empty name downloads under the file's own name", async () => {
    const url = await storedPhotoUrl();
    const own = new URL(url).pathname.split("/").pop();
    const res = await fetchStored(t, `${url}?download=`);
    expect(res.headers.get("content-disposition")).toStartWith(`attachment; filename="${own}"`);
  });
});

describe("download names", () => {
  test("what file systems refuse is replaced, and the name can neither change the extension nor hide", () => {
    expect(downloadFileName("a/b\\c:d*e?f\"g<h>i|j", "videos/v/video.mp4")).toBe("a-b-c-d-e-f-g-h-i-j.mp4");
    expect(downloadFileName("setup.exe", "videos/v/video.mp4")).toBe("setup.exe.mp4");
    // What a header or a link reads itself, as a video's own download name leaves out.
    expect(downloadFileName("50% off; #1 Tea & Co", "videos/v/video.mp4")).toBe("50- off- -1 Tea - Co.mp4");
    expect(downloadFileName("clip.MP4", "videos/v/video.mp4")).toBe("clip.mp4");
    expect(downloadFileName("..hidden. . ", "videos/v/video.mp4")).toBe("hidden.mp4");
    expect(downloadFileName("gpj\u202eexe", "videos/v/video.mp4")).toBe("gpj-exe.mp4");
    expect(downloadFileName("line\r\nbreak; x=1", "videos/v/video.mp4")).toBe("line-break- x=1.mp4");
    expect(downloadFileName("CON", "videos/v/video.mp4")).toBe("CON_.mp4");
    expect(downloadFileName("nul.tar", "videos/v/video.mp4")).toBe("nul.tar_.mp4");
    expect(downloadFileName("console", "videos/v/video.mp4")).toBe("console.mp4");
    expect(downloadFileName("mu\u200bg\ufeff", "videos/v/video.mp4")).toBe("mug.mp4");
    expect(downloadFileName("///", "videos/v/video-7.mp4")).toBe("video-7.mp4");
  });

  test("a long name is cut to 120 characters before the extension", () => {
    const name = downloadFileName("ç".repeat(300), "videos/v/video.mp4");
    expect(name).toBe(`${"ç".repeat(120)}.mp4`);
  });

  test("a name of wide characters is cut to 240 bytes of UTF-8, whole characters only, so file systems take it", () => {
    const name = downloadFileName("茶".repeat(120), "videos/v/video.mp4");
    expect(name).toBe(`${"茶".repeat(80)}.mp4`);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
  });

  test("the header's ASCII name drops accents and quotes; the UTF-8 one escapes what RFC 8187 asks", () => {
    expect(attachment("Çay'(1).mp4")).toBe(`attachment; filename="Cay'(1).mp4"; filename*=UTF-8''%C3%87ay%27%281%29.mp4`);
    // Letters with no accent to drop are spelled out: Turkish dotless ı is an i, not an underscore.
    expect(attachment("Kahve fincanı ßæ.mp4")).toStartWith(`attachment; filename="Kahve fincani ssae.mp4"`);
    // A name in another script is one underscore where it stood, its separators with it.
    expect(attachment("Cup_クリーンカード_1x1_ja.mp4")).toStartWith(`attachment; filename="Cup_1x1_ja.mp4"`);
    expect(attachment("Cup_بطاقة-بسيطة_1x1_ar.mp4")).toStartWith(`attachment; filename="Cup_1x1_ar.mp4"`);
  });
});
