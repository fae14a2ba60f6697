export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";
type Fields = Record<string, unknown>;
export type Logger = {
    debug(msg: string, fields?: Fields): void;
    info(msg: string, fields?: Fields): void;
    warn(msg: string, fields?: Fields): void;
    error(msg: string, fields?: Fields): void;
    child(fields: Fields): Logger;
    enabled(level: LogLevel): boolean;
};
export type LogSink = (chunk: string) => void;
export declare function createLogger(level?: LogLevel, sink?: LogSink, base?: Fields, batch?: boolean): Logger;
/** A logger that keeps its records in memory, for tests that assert on what was logged. */
export declare function memoryLogger(level?: LogLevel): Logger & {
    records: Fields[];
};
export {};
