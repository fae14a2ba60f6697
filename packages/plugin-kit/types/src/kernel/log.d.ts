export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
type Fields = Record<string, unknown>;
export type Logger = {
    debug(msg: string, fields?: Fields): void;
    info(msg: string, fields?: Fields): void;
    warn(msg: string, fields?: Fields): void;
    error(msg: string, fields?: Fields): void;
    /**
     * An info line whose fields come already written as JSON members (`"key":value,…`, none repeating a bound field's
     * key): the access log writes one a request, and building the text directly costs ~0.2 µs less than building an
     * object and JSON.stringify-ing it (measured; the spreads and the generic stringify are most of a line's cost).
     * Optional, so loggers made elsewhere (plugins' quiet ones) stay loggers; callers fall back to info().
     */
    infoJson?(msg: string, members: string): void;
    child(fields: Fields): Logger;
    enabled(level: LogLevel): boolean;
};
export type LogSink = (chunk: string) => void;
/** For the CLI's commands, whose stdout is their answer (`--json` is read by scripts): their log lines go to stderr. */
export declare const stderrSink: LogSink;
/**
 * Lets the lines batched this turn reach stdout; awaited before process.exit, which would drop them (a plugin that
 * failed to start would lose the stack its error line sends the reader to).
 */
export declare function settleLogs(): Promise<void>;
export declare function createLogger(level?: LogLevel, sink?: LogSink, base?: Fields, batch?: boolean): Logger;
/** A logger that keeps its records in memory, for tests that assert on what was logged. */
export declare function memoryLogger(level?: LogLevel): Logger & {
    records: Fields[];
};
export {};
