// Tracks from folders named by VITRIN_MUSIC_DIRS: each holds a tracks.json (the same shape as music/tracks.json)
// beside its audio files. A malformed catalogue stops the start with a message naming the file.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Track, TrackEntry } from "./track";

const ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

function checkEntry(entry: unknown, where: string): TrackEntry {
  const e = entry as Partial<TrackEntry>;
  const bad = (what: string) => new Error(`${where}: ${what}`);
  if (typeof e !== "object" || e === null) throw bad("each track must be an object");
  if (typeof e.id !== "string" || !ID.test(e.id)) throw bad(`track id ${JSON.stringify(e.id)} must be a-z, 0-9 and dashes`);
  for (const key of ["title", "mood", "license", "file"] as const) {
    if (typeof e[key] !== "string" || !e[key]) throw bad(`track ${e.id} needs a ${key}`);
  }
  if (typeof e.bpm !== "number" || !(e.bpm >= 20 && e.bpm <= 300)) throw bad(`track ${e.id} needs a bpm between 20 and 300`);
  if (typeof e.duration_seconds !== "number" || !(e.duration_seconds > 0)) throw bad(`track ${e.id} needs duration_seconds > 0`);
  return e as TrackEntry;
}

export function readMusicDir(dir: string): Track[] {
  const file = join(dir, "tracks.json");
  if (!existsSync(file)) throw new Error(`music folder ${dir} has no tracks.json`);
  let entries: unknown;
  try {
    entries = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`${file} is not JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(entries)) throw new Error(`${file} must be a JSON array of tracks`);
  return entries.map((entry) => {
    const track = checkEntry(entry, file);
    const path = resolve(dir, track.file);
    if (!path.startsWith(resolve(dir))) throw new Error(`${file}: track ${track.id}'s file must be inside the folder`);
    if (!existsSync(path)) throw new Error(`${file}: track ${track.id}'s file ${track.file} does not exist`);
    return { ...track, path };
  });
}
