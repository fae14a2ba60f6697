import type { Config } from "../config";
import type { Logger } from "../kernel";
export type CommandContext<T> = {
    config: Config;
    /** The plugin's declared settings, read as at start. */
    settings: T;
    logger: Logger;
    /** The positional arguments after the command's words. */
    args: string[];
    /** `--json` was given: print data as JSON rather than text. */
    json: boolean;
    /** Prints `human`, or `data` as JSON with --json. */
    print(human: string, data: unknown): void;
};
/** The first words of the core's own commands (main.ts types its table by them): no plugin command may begin with one. */
export declare const CORE_COMMANDS: readonly ["version", "help", "serve", "worker", "health", "migrate", "accounts", "tokens", "topups", "ledger", "jobs", "backup", "restore", "plugins"];
export type CoreCommand = (typeof CORE_COMMANDS)[number];
export type PluginCommand<T = any> = {
    /** The words after `vitrin`, e.g. ["models", "install"]. */
    words: string[];
    /** What follows the words in --help, e.g. "[--json]". */
    usage: string;
    /** What it does, in a few words for --help. */
    description: string;
    /** Returns the exit code. */
    run(ctx: CommandContext<T>): Promise<number>;
};
/** The arguments with every negative number made a value: joined to an option that takes one, else marked positional. */
export declare function protectNegatives(argv: string[], takesValue: (option: string) => boolean): string[];
/** The positionals as typed, once parseArgs is done with them. */
export declare function unmarkNegatives(positionals: string[]): string[];
/** --help, help, help COMMAND, COMMAND --help: exit 0 with the usage asked for; 2 for a command that does not exist. */
export declare function printHelp(help: string, word: string | undefined): number;
