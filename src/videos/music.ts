// A video's music: the request's `music` ("auto", a track id or "none") checked and stored as a track id or "none",
// and the stored choice turned into the track the renderer plays.
import { errors } from "../kernel";
import type { RenderMusic } from "../plugins";
import type { VideoDeps } from "./types";

/** The choice to store; an unknown track id is the caller's mistake, named `music`. */
export function chooseMusic(deps: Pick<VideoDeps, "music">, templateId: string, choice = "auto"): string {
  if (!deps.music || choice === "none") return "none";
  const track = deps.music.choose(choice, templateId);
  if (track === undefined) {
    throw errors.validation([{ field: "music", message: `There is no track "${choice}": use a track id from GET /v1/music, "auto" or "none".` }]);
  }
  return track?.id ?? "none";
}

/** The track for a stored choice (videos made before music had none stored: they get the template's own). */
export function musicForRender(deps: Pick<VideoDeps, "music">, stored: string | null, templateId: string): RenderMusic | null {
  const track = deps.music?.choose(stored ?? "auto", templateId);
  return track ? { file: track.path, bpm: track.bpm, seconds: track.duration_seconds } : null;
}
