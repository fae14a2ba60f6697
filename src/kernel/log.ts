// Structured JSON-line logging; lines are batched per event-loop turn so request logging stays cheap under load.
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
type Fields = Record<string, unknown>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type Logger = {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  child(fields: Fields): Logger;
  enabled(level: LogLevel): boolean;
};

export type LogSink = (chunk: string) => void;

// Bun's buffered stdout writer is several times cheaper per line than process.stdout.write.
const stdoutWriter = typeof Bun !== "undefined" ? Bun.stdout.writer() : null;
const stdoutSink: LogSink = (chunk) => {
  if (stdoutWriter) {
    stdoutWriter.write(chunk);
    stdoutWriter.flush();
  } else {
    process.stdout.write(chunk);
  }
};

// At thousands of lines a second most fall in a millisecond already formatted: toISOString costs ~0.3 µs a call.
let stampMs = -1;
let stamp = "";
function isoNow(): string {
  const ms = Date.now();
  if (ms !== stampMs) {
    stampMs = ms;
    stamp = new Date(ms).toISOString();
  }
  return stamp;
}

/** Keys written before a line's own fields, or (err) rewritten: fastLine leaves lines that use them to the record. */
const headKeys = new Set(["time", "level", "msg", "err"]);

/** Whether a key may be written in the order it comes: JavaScript puts integer-like keys of an object first. */
function plainKey(key: string): boolean {
  const c = key.charCodeAt(0);
  return !(c >= 48 && c <= 57) && !headKeys.has(key);
}

/**
 * The text of `JSON.stringify({time, level, msg, ...bound, ...fields})` without building that merged object: the
 * access log writes a line per request, and the spreads and the walk over the merged record cost about as much as
 * the JSON itself. `boundText` is the bound fields' JSON without braces, or null when they cannot be written ahead
 * (see plainKey). Null when the line needs the record (a field repeats an earlier key or is `err`).
 */
function fastLine(lvl: LogLevel, msg: string, bound: Fields, boundText: string | null, fields: Fields | undefined): string | null {
  if (boundText === null) return null;
  let own = "";
  if (fields !== undefined) {
    for (const key in fields) if (!plainKey(key) || key in bound) return null;
    own = JSON.stringify(fields);
    own = own.length > 2 ? own.slice(1, -1) : "";
  }
  let line = `{"time":"${isoNow()}","level":"${lvl}","msg":${JSON.stringify(msg)}`;
  if (boundText !== "") line += "," + boundText;
  if (own !== "") line += "," + own;
  return line + "}\n";
}

export function createLogger(level: LogLevel = "info", sink: LogSink = stdoutSink, base: Fields = {}, batch = true): Logger {
  const min = rank[level];
  let pending: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const lines = pending;
    pending = [];
    if (lines.length > 0) sink(lines.join(""));
  };
  const write = (line: string) => {
    if (!batch) return sink(line);
    pending.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  const make = (bound: Fields): Logger => {
    // The bound fields' JSON is written once per logger; a line then only writes its own fields (see fastLine).
    const boundText = Object.keys(bound).every(plainKey) ? JSON.stringify(bound).slice(1, -1) : null;
    const emit = (lvl: LogLevel, msg: string, fields?: Fields) => {
      if (rank[lvl] < min) return;
      const fast = fastLine(lvl, msg, bound, boundText, fields);
      if (fast !== null) return write(fast);
      const record: Fields = { time: isoNow(), level: lvl, msg, ...bound, ...fields };
      if (record.err instanceof Error) {
        const e = record.err as Error;
        record.err = { name: e.name, message: e.message, stack: e.stack };
      }
      write(JSON.stringify(record) + "\n");
    };
    return {
      debug: (m, f) => emit("debug", m, f),
      info: (m, f) => emit("info", m, f),
      warn: (m, f) => emit("warn", m, f),
      error: (m, f) => emit("error", m, f),
      child: (f) => make({ ...bound, ...f }),
      enabled: (lvl) => rank[lvl] >= min,
    };
  };
  return make(base);
}

/** A logger that keeps its records in memory, for tests that assert on what was logged. */
export function memoryLogger(level: LogLevel = "debug"): Logger & { records: Fields[] } {
  const records: Fields[] = [];
  // Unbatched, so a record is there as soon as the code under test has logged it.
  const logger = createLogger(
    level,
    (chunk) => {
      for (const line of chunk.split("\n")) if (line) records.push(JSON.parse(line));
    },
    {},
    false,
  );
  return Object.assign(logger, { records });
}
