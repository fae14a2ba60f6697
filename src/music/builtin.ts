// The tracks that ship with vitrin: music/tracks.json and the rendered files, imported as embedded file paths so a
// `bun build --compile` binary carries them (a path on disk from source, under /$bunfs/ in a binary).
import catalogue from "../../music/tracks.json";
import spark from "../../music/spark.opus" with { type: "file" };
import velvet from "../../music/velvet.opus" with { type: "file" };
import sunnySide from "../../music/sunny-side.opus" with { type: "file" };
import brightSide from "../../music/bright-side.opus" with { type: "file" };
import circuit from "../../music/circuit.opus" with { type: "file" };
import horizon from "../../music/horizon.opus" with { type: "file" };
import type { Track, TrackEntry } from "./track";

const FILES: Record<string, string> = {
  "spark.opus": spark,
  "velvet.opus": velvet,
  "sunny-side.opus": sunnySide,
  "bright-side.opus": brightSide,
  "circuit.opus": circuit,
  "horizon.opus": horizon,
};

export const BUILTIN_TRACKS: Track[] = (catalogue as TrackEntry[]).map((entry) => {
  const path = FILES[entry.file];
  if (!path) throw new Error(`music/tracks.json names ${entry.file}, which src/music/builtin.ts does not import`);
  return { ...entry, path };
});
