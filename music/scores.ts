// The scores of vitrin's own music tracks: each track is a tempo, a chord loop and a few parts (General MIDI
// programs) written out as notes; scripts/music.ts turns them into MIDI files and renders those with FluidR3_GM.

/** One note: start and length in beats, MIDI pitch, velocity 1-127. */
export type Note = { at: number; beats: number; pitch: number; velocity: number };
/** One instrument: a General MIDI program (ignored on channel 9, the drums) and its notes. */
export type Part = { name: string; channel: number; program: number; volume: number; notes: Note[] };
export type Score = { id: string; title: string; mood: string; bpm: number; bars: number; parts: Part[] };

const BEATS_PER_BAR = 4;

/** A chord as MIDI pitches: root plus intervals (semitones). */
type Chord = { root: number; tones: number[] };
const major = (root: number): Chord => ({ root, tones: [0, 4, 7] });
const minor = (root: number): Chord => ({ root, tones: [0, 3, 7] });
const maj7 = (root: number): Chord => ({ root, tones: [0, 4, 7, 11] });
const min7 = (root: number): Chord => ({ root, tones: [0, 3, 7, 10] });
const sus2 = (root: number): Chord => ({ root, tones: [0, 2, 7] });

// General MIDI drum keys.
const KICK = 36, SNARE = 38, CLAP = 39, CLOSED_HAT = 42, OPEN_HAT = 46, CRASH = 49, SHAKER = 70, RIDE = 51, TOM = 45, SNAP = 37;

/** The chord sounding in a bar: the loop repeats. */
const chordAt = (loop: Chord[], bar: number) => loop[bar % loop.length]!;
/** Chord tones (with octaves) within [low, high], sorted. */
function tonesIn(chord: Chord, low: number, high: number): number[] {
  const out: number[] = [];
  for (let p = low; p <= high; p++) if (chord.tones.some((t) => (((p - chord.root - t) % 12) + 12) % 12 === 0)) out.push(p);
  return out;
}

/** Sustained chords, one per bar (or per half bar), voiced within a range. */
function pads(loop: Chord[], bars: number, low: number, high: number, velocity: number, from = 0, split = 1): Note[] {
  const notes: Note[] = [];
  const length = BEATS_PER_BAR / split;
  for (let bar = from; bar < bars; bar++) {
    for (let s = 0; s < split; s++) {
      for (const pitch of tonesIn(chordAt(loop, bar), low, high)) notes.push({ at: bar * BEATS_PER_BAR + s * length, beats: length, pitch, velocity });
    }
  }
  return notes;
}

/** A bass line: the chord's root in a rhythm of beat offsets (with the fifth where the pattern says 5). */
function bass(loop: Chord[], bars: number, octave: number, rhythm: [number, number, 0 | 5 | 12][], velocity: number, from = 0): Note[] {
  const notes: Note[] = [];
  for (let bar = from; bar < bars; bar++) {
    const chord = chordAt(loop, bar);
    const root = (chord.root % 12) + octave * 12;
    for (const [at, beats, step] of rhythm) notes.push({ at: bar * BEATS_PER_BAR + at, beats, pitch: root + (step === 5 ? 7 : step), velocity });
  }
  return notes;
}

/** An arpeggio over each bar's chord: `order` indexes the chord tones in range, one per step. */
function arpeggio(loop: Chord[], bars: number, low: number, high: number, step: number, order: number[], velocity: number, from = 0): Note[] {
  const notes: Note[] = [];
  const steps = BEATS_PER_BAR / step;
  for (let bar = from; bar < bars; bar++) {
    const tones = tonesIn(chordAt(loop, bar), low, high);
    for (let i = 0; i < steps; i++) {
      const pitch = tones[order[i % order.length]! % tones.length]!;
      notes.push({ at: bar * BEATS_PER_BAR + i * step, beats: step * 0.9, pitch, velocity: velocity - (i % 2) * 12 });
    }
  }
  return notes;
}

/** A melody written as [beat, beats, pitch] phrases, one phrase per bar of the loop, repeated from bar `from`. */
function melody(phrases: [number, number, number][][], bars: number, velocity: number, from: number, every = 1): Note[] {
  const notes: Note[] = [];
  for (let bar = from; bar < bars; bar++) {
    if ((bar - from) % every !== 0 && every > 1) continue;
    const phrase = phrases[(bar - from) % phrases.length]!;
    for (const [at, beats, pitch] of phrase) notes.push({ at: bar * BEATS_PER_BAR + at, beats, pitch, velocity });
  }
  return notes;
}

/** A drum pattern: per key, the beats within a bar it is struck on; accents on the bar's downbeat. */
function drums(bars: number, pattern: Record<number, number[]>, velocity: number, from = 0, until = bars): Note[] {
  const notes: Note[] = [];
  for (let bar = from; bar < until; bar++) {
    for (const [key, beats] of Object.entries(pattern)) {
      for (const at of beats) notes.push({ at: bar * BEATS_PER_BAR + at, beats: 0.25, pitch: Number(key), velocity: at === 0 ? velocity : velocity - 14 });
    }
  }
  return notes;
}

/** A crash on the first beat of every `every` bars (marks sections, so a cut on a bar line lands on a phrase). */
const crashes = (bars: number, every: number, velocity: number, from = 0) =>
  Array.from({ length: Math.ceil((bars - from) / every) }, (_, i) => ({ at: (from + i * every) * BEATS_PER_BAR, beats: 1, pitch: CRASH, velocity }));

const eighths = [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5];
const sixteenths = Array.from({ length: 16 }, (_, i) => i / 4);

/** Bars needed for at least 32 seconds at a tempo. */
const barsFor = (bpm: number) => Math.ceil((32 * bpm) / 60 / BEATS_PER_BAR);

function energetic(): Score {
  const bpm = 128, bars = barsFor(bpm);
  const loop = [minor(57), major(53), major(48), major(55)]; // Am F C G
  const lead: [number, number, number][][] = [
    [[0, 0.5, 76], [0.5, 0.5, 76], [1, 0.5, 72], [1.5, 1, 74], [3, 0.5, 72], [3.5, 0.5, 71]],
    [[0, 1, 72], [1, 0.5, 69], [1.5, 0.5, 72], [2, 1.5, 77], [3.5, 0.5, 76]],
    [[0, 0.5, 79], [0.5, 0.5, 76], [1, 1, 72], [2, 0.5, 76], [2.5, 0.5, 79], [3, 1, 84]],
    [[0, 1.5, 83], [1.5, 0.5, 81], [2, 1, 79], [3, 1, 74]],
  ];
  return {
    id: "spark", title: "Spark", mood: "energetic", bpm, bars, parts: [
      { name: "drums", channel: 9, program: 0, volume: 110, notes: [
        ...drums(bars, { [KICK]: [0, 1, 2, 3], [CLAP]: [1, 3], [CLOSED_HAT]: [0.5, 1.5, 2.5, 3.5], [OPEN_HAT]: [3.5] }, 112),
        ...crashes(bars, 4, 100),
      ] },
      { name: "bass", channel: 0, program: 38, volume: 105, notes: bass(loop, bars, 3, eighths.map((at) => [at, 0.4, at % 1 ? 12 : 0] as [number, number, 0 | 12]), 110) },
      { name: "stabs", channel: 1, program: 81, volume: 70, notes: arpeggio(loop, bars, 60, 76, 0.25, [0, 2, 1, 3, 2, 4, 3, 1], 90) },
      { name: "lead", channel: 2, program: 80, volume: 85, notes: melody(lead, bars, 105, 4) },
      { name: "pad", channel: 3, program: 90, volume: 60, notes: pads(loop, bars, 52, 67, 70) },
    ],
  };
}

function calm(): Score {
  const bpm = 72, bars = barsFor(bpm);
  const loop = [maj7(61), min7(58), maj7(54), sus2(56)]; // Dbmaj7 Bbm7 Gbmaj7 Absus2
  const theme: [number, number, number][][] = [
    [[0, 1.5, 77], [1.5, 0.5, 75], [2, 2, 73]],
    [[0, 1, 73], [1, 1, 72], [2, 2, 70]],
    [[0, 1.5, 73], [1.5, 0.5, 72], [2, 1, 70], [3, 1, 65]],
    [[0, 3, 68], [3, 1, 70]],
  ];
  return {
    id: "velvet", title: "Velvet", mood: "calm", bpm, bars, parts: [
      { name: "piano", channel: 0, program: 0, volume: 100, notes: [...arpeggio(loop, bars, 49, 73, 0.5, [0, 2, 4, 3, 5, 3, 4, 2], 70), ...melody(theme, bars, 82, 2)] },
      { name: "strings", channel: 1, program: 49, volume: 80, notes: pads(loop, bars, 53, 68, 62, 1) },
      { name: "bass", channel: 2, program: 32, volume: 90, notes: bass(loop, bars, 2, [[0, 3.8, 0]], 80) },
      { name: "pad", channel: 3, program: 88, volume: 55, notes: pads(loop, bars, 60, 72, 50) },
    ],
  };
}

function warm(): Score {
  const bpm = 96, bars = barsFor(bpm);
  const loop = [major(55), major(50), minor(52), major(48)]; // G D Em C
  const tune: [number, number, number][][] = [
    [[0, 0.5, 79], [0.5, 0.5, 81], [1, 1, 83], [2, 0.5, 81], [2.5, 1.5, 79]],
    [[0, 1, 78], [1, 0.5, 76], [1.5, 0.5, 78], [2, 2, 81]],
    [[0, 0.5, 79], [0.5, 0.5, 76], [1, 1, 79], [2, 1, 83], [3, 1, 86]],
    [[0, 1.5, 84], [1.5, 0.5, 83], [2, 2, 79]],
  ];
  return {
    id: "sunny-side", title: "Sunny side", mood: "warm", bpm, bars, parts: [
      { name: "guitar", channel: 0, program: 25, volume: 100, notes: arpeggio(loop, bars, 52, 71, 0.5, [0, 3, 2, 4, 1, 3, 2, 4], 88) },
      { name: "bass", channel: 1, program: 32, volume: 95, notes: bass(loop, bars, 2, [[0, 1, 0], [1.5, 0.5, 5], [2, 1, 12], [3, 0.5, 5]], 92) },
      { name: "glockenspiel", channel: 2, program: 9, volume: 75, notes: melody(tune, bars, 90, 2) },
      { name: "drums", channel: 9, program: 0, volume: 90, notes: drums(bars, { [KICK]: [0, 2.5], [SNAP]: [1, 3], [SHAKER]: eighths }, 80, 2) },
    ],
  };
}

function upbeat(): Score {
  const bpm = 116, bars = barsFor(bpm);
  const loop = [major(48), major(55), minor(57), major(53)]; // C G Am F
  const hook: [number, number, number][][] = [
    [[0, 0.5, 72], [0.5, 0.5, 74], [1, 0.5, 76], [1.5, 1, 79], [3, 0.5, 76], [3.5, 0.5, 74]],
    [[0, 1, 74], [1, 0.5, 71], [1.5, 1.5, 79], [3, 1, 74]],
    [[0, 0.5, 72], [0.5, 0.5, 76], [1, 1, 81], [2, 0.5, 79], [2.5, 1.5, 76]],
    [[0, 1, 77], [1, 1, 76], [2, 1, 74], [3, 1, 72]],
  ];
  return {
    id: "bright-side", title: "Bright side", mood: "upbeat", bpm, bars, parts: [
      { name: "drums", channel: 9, program: 0, volume: 105, notes: [
        ...drums(bars, { [KICK]: [0, 1.5, 2], [SNARE]: [1, 3], [CLOSED_HAT]: eighths }, 104),
        ...crashes(bars, 8, 95),
      ] },
      { name: "keys", channel: 0, program: 4, volume: 85, notes: pads(loop, bars, 55, 72, 78, 0, 4) },
      { name: "bass", channel: 1, program: 33, volume: 100, notes: bass(loop, bars, 3, [[0, 0.75, 0], [0.75, 0.75, 0], [1.5, 0.5, 12], [2, 0.75, 0], [2.75, 0.75, 5], [3.5, 0.5, 12]], 100) },
      { name: "lead", channel: 2, program: 11, volume: 90, notes: melody(hook, bars, 100, 2) },
    ],
  };
}

function minimal(): Score {
  const bpm = 110, bars = barsFor(bpm);
  const loop = [minor(52), major(48), major(55), major(50)]; // Em C G D
  return {
    id: "circuit", title: "Circuit", mood: "minimal", bpm, bars, parts: [
      { name: "drums", channel: 9, program: 0, volume: 95, notes: [
        ...drums(bars, { [KICK]: [0, 2], [CLOSED_HAT]: sixteenths.filter((_, i) => i % 2 === 1), [RIDE]: [1, 3] }, 96, 0),
        ...drums(bars, { [CLAP]: [3] }, 80, 4),
      ] },
      { name: "pluck", channel: 0, program: 45, volume: 95, notes: arpeggio(loop, bars, 59, 79, 0.25, [0, 1, 2, 3, 1, 2, 3, 4], 92) },
      { name: "sub", channel: 1, program: 38, volume: 95, notes: bass(loop, bars, 2, [[0, 1.5, 0], [2, 1.5, 0]], 100) },
      { name: "pad", channel: 2, program: 89, volume: 60, notes: pads(loop, bars, 55, 67, 60, 2) },
    ],
  };
}

function cinematic(): Score {
  const bpm = 84, bars = barsFor(bpm);
  const loop = [minor(50), major(46), major(41), major(45)]; // Dm Bb F A
  const horn: [number, number, number][][] = [
    [[0, 2, 62], [2, 1, 65], [3, 1, 69]],
    [[0, 3, 70], [3, 1, 69]],
    [[0, 2, 69], [2, 1, 65], [3, 1, 60]],
    [[0, 4, 61]],
  ];
  return {
    id: "horizon", title: "Horizon", mood: "cinematic", bpm, bars, parts: [
      { name: "strings", channel: 0, program: 48, volume: 100, notes: [...pads(loop, bars, 50, 69, 85), ...arpeggio(loop, bars, 62, 81, 0.5, [0, 1, 2, 1, 3, 2, 1, 2], 70, 4)] },
      { name: "low strings", channel: 1, program: 48, volume: 100, notes: bass(loop, bars, 2, [[0, 0.5, 0], [0.5, 0.5, 0], [1, 0.5, 0], [1.5, 0.5, 0], [2, 0.5, 0], [2.5, 0.5, 0], [3, 0.5, 0], [3.5, 0.5, 0]], 92) },
      { name: "horns", channel: 2, program: 60, volume: 85, notes: melody(horn, bars, 92, 4) },
      { name: "choir", channel: 3, program: 52, volume: 60, notes: pads(loop, bars, 57, 69, 60, 4) },
      { name: "percussion", channel: 9, program: 0, volume: 100, notes: [
        ...drums(bars, { [KICK]: [0, 2.5], [TOM]: [3, 3.5] }, 100, 4),
        ...crashes(bars, 4, 90, 4),
      ] },
      { name: "timpani", channel: 4, program: 47, volume: 95, notes: bass(loop, bars, 2, [[0, 1, 0], [3.5, 0.5, 0]], 100) },
    ],
  };
}

export const SCORES: Score[] = [energetic(), calm(), warm(), upbeat(), minimal(), cinematic()];
export { BEATS_PER_BAR };
