// The renderer kit run against every renderer plugin: ffmpeg, over every built-in template with each language at least
// once (Arabic right-to-left and Japanese CJK among them), and the example folder plugin renderer-still.
import { expect, test } from "bun:test";
import { createFfmpegRenderer } from "../../plugins/renderer-ffmpeg";
import { loadTemplates, renderSize } from "../../src/templates";
import { BUILTIN_TEMPLATES } from "../../templates";
import { examplePlugin } from "./example-plugins";
import { rendererConformance, type RenderCase } from "./renderer";

const SCALE = 0.25;
const LANGUAGES = ["en", "ar", "ja", "tr", "de", "fr", "es"];
const registry = await loadTemplates({ builtin: BUILTIN_TEMPLATES });
const templates = registry.list();

/** Every built-in template, each in the next language, measured as it must come out at SCALE. */
const cases: RenderCase[] = templates.map(({ info }, i) => ({
  templateId: info.id,
  language: LANGUAGES[i % LANGUAGES.length],
  ...renderSize(info, SCALE),
  durationSeconds: info.duration,
}));

test("the cases cover every built-in template (at least five)", () => {
  expect(cases.length).toBeGreaterThanOrEqual(5);
  expect(new Set(cases.map((c) => c.language)).size).toBe(Math.min(cases.length, LANGUAGES.length));
});

rendererConformance("ffmpeg", async () => createFfmpegRenderer({ templates: registry }), {
  cases,
  scale: SCALE,
  // showcase at half size runs long enough to be caught mid-encode.
  abortCase: { templateId: "showcase", scale: 0.5 },
  errors: { abortedMidRender: /cancelled; ffmpeg was killed/, abortedBeforeStart: /cancelled/, unknownTemplate: /^unknown template "/, missingImage: /^the product image does not exist: / },
});

rendererConformance("example folder plugin renderer-still", () => examplePlugin("renderer", "still"), {
  cases: cases.slice(0, 2),
  scale: SCALE,
});
