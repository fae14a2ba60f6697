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
/**
 * A usage error (exit 2): one line on stderr beginning `error:`, as every refusal the command line prints, so an
 * operator's script or eye finds the same shape for a missing id as for a bad value.
 */
export declare function usageError(message: string): number;
/**
 * Words a command cannot take (a missing id, a subcommand it does not have, a word too many) as one usage error: the
 * synopsis of the subcommand typed (`usage: vitrin topups complete TOP_UP_ID [--json]`), or of the command when it
 * has no subcommands (`backup PATH`), else the subcommands it has. `help` is the usage main.ts prints for --help.
 */
export declare function wrongWords(help: string, command: string, sub: string | undefined): number;
/**
 * Whether the words typed fit one of the usage's lines for `command sub`: the subcommand exists and every required
 * argument (an upper-case word outside brackets, `ID AMOUNT`) is there. Checked before a command opens anything, so
 * a typing slip is said as such rather than as a missing database.
 */
export declare function wordsFit(help: string, command: string, sub: string | undefined, rest: string[]): boolean;
/** A refusal of node:util's parseArgs (an unknown option, a value missing): a usage error. */
export declare const isParseArgsError: (e: unknown) => e is Error & {
    code: string;
};
/**
 * parseArgs's refusal in our words: its text for an unknown option goes on about `--` and positionals (and its quotes
 * do not pair once cut), so that one is said plainly; its others (a value missing) are short and kept.
 */
export declare function parseArgsMessage(e: Error & {
    code: string;
}): string;
/** The message for a first word that is no command (a usage error: the help that lists them is named, not printed). */
export declare function unknownCommand(word: string): string;
/** --help, help, help COMMAND, COMMAND --help: exit 0 with the usage asked for; 2 for a command that does not exist. */
export declare function printHelp(help: string, word: string | undefined): number;
