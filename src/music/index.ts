// The music catalogue: the tracks that ship with vitrin plus those of VITRIN_MUSIC_DIRS folders, and how a video's
// `music` choice ("auto", a track id or "none") becomes a track.
import { BUILTIN_TRACKS } from "./builtin";
import { readMusicDir } from "./folders";
import type { Track } from "./track";

export { trackJson, type Track, type TrackEntry } from "./track";

/** The mood each built-in template was written with; a template not listed here gets DEFAULT_MOOD. */
export const TEMPLATE_MOODS: Record<string, string> = {
  "flash-sale": "energetic",
  "minimal-luxe": "calm",
  "clean-card": "warm",
  showcase: "upbeat",
  "feature-split": "minimal",
  spotlight: "cinematic",
};
const DEFAULT_MOOD = "upbeat";

export type MusicChoice = "auto" | "none" | (string & {});

export type Music = {
  list(): Track[];
  get(id: string): Track | undefined;
  /** The track a choice names for a template: null for "none", undefined for an unknown id. */
  choose(choice: MusicChoice, templateId: string): Track | null | undefined;
};

export function createMusic(dirs: string[] = []): Music {
  const tracks = [...BUILTIN_TRACKS];
  for (const dir of dirs) {
    for (const track of readMusicDir(dir)) {
      if (tracks.some((t) => t.id === track.id)) throw new Error(`music track id ${track.id} (in ${dir}) is already taken`);
      tracks.push(track);
    }
  }
  const byId = new Map(tracks.map((t) => [t.id, t]));
  const auto = (templateId: string) => {
    const mood = TEMPLATE_MOODS[templateId] ?? DEFAULT_MOOD;
    return tracks.find((t) => t.mood === mood) ?? tracks[0] ?? null;
  };
  return {
    list: () => tracks,
    get: (id) => byId.get(id),
    choose(choice, templateId) {
      if (choice === "none") return null;
      if (choice === "auto") return auto(templateId);
      return byId.get(choice);
    },
  };
}
