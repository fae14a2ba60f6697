// What a music track is: its catalogue entry (as in a tracks.json) and where its audio file is.
export type TrackEntry = {
  id: string;
  title: string;
  mood: string;
  bpm: number;
  duration_seconds: number;
  license: string;
  /** The audio file, relative to its tracks.json. */
  file: string;
};

/** A track ready to play: `path` is absolute (or an embedded /$bunfs/ path in a compiled binary). */
export type Track = TrackEntry & { path: string };

/** The public view of a track (GET /v1/music). */
export const trackJson = (t: Track) => ({
  id: t.id,
  title: t.title,
  mood: t.mood,
  bpm: t.bpm,
  duration_seconds: t.duration_seconds,
  license: t.license,
});
