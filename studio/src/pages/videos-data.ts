// The data the video pages share: templates (cached for the visit, they change only with a deploy), music, the
// account's products by id, and the video states that still move.
import { api, asProblem } from "../api";

export type Template = NonNullable<Awaited<ReturnType<typeof loadTemplates>>>[number];

let templates: Promise<Template[]> | null = null;
let templatesSeen: Template[] | null = null;
let musicSeen: Track[] | null = null;

async function fetchTemplates() {
  const { data, error } = await api.GET("/v1/templates");
  if (error || !data) throw new Error(asProblem(error)?.message ?? "GET /v1/templates failed");
  templatesSeen = data.data;
  return data.data;
}

/** Every template (one request per visit; a failed one is tried again next time). */
export function loadTemplates(): Promise<Awaited<ReturnType<typeof fetchTemplates>>> {
  templates ??= fetchTemplates().catch((e) => {
    templates = null;
    throw e;
  });
  return templates;
}

/** A template's name and description in the interface's language, English where the template has none in it. */
export function templateWords(tpl: Pick<Template, "name" | "description" | "translations">, lang: string): { name: string; description: string } {
  return tpl.translations[lang] ?? { name: tpl.name, description: tpl.description };
}

export type Track = NonNullable<Awaited<ReturnType<typeof fetchMusic>>>[number];

async function fetchMusic() {
  const { data } = await api.GET("/v1/music");
  return data?.data ?? [];
}

export async function loadMusic() {
  musicSeen = await fetchMusic();
  return musicSeen;
}

/** Templates and music as already loaded in this visit (for a form that can show at once), or null. */
export function choicesSeen(): { templates: Template[]; music: Track[] } | null {
  return templatesSeen ? { templates: templatesSeen, music: musicSeen ?? [] } : null;
}

export type Video = NonNullable<Awaited<ReturnType<typeof loadVideo>>>;

export async function loadVideo(id: string) {
  const { data, error, response } = await api.GET("/v1/videos/{id}", { params: { path: { id } } });
  if (response.status === 404) return null;
  if (error || !data) throw new Error(asProblem(error)?.message ?? `GET /v1/videos/${id} failed`);
  return data;
}

/** A video still on its way (the pages poll while one is). */
export function moving(status: string): boolean {
  return status === "queued" || status === "processing";
}

/** The status word shown: "processing" of a video reads as rendering. */
export function videoStatus(status: string): string {
  return status === "processing" ? "rendering" : status;
}
