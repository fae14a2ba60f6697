// Commands a plugin adds to the `vitrin` CLI (`main.ts` lists them in --help and runs them with the plugin's settings),
// and the command line's shared pieces: per-command help, usage errors and numbers below zero as values.
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
export const CORE_COMMANDS = ["version", "help", "serve", "worker", "health", "migrate", "accounts", "tokens", "topups", "ledger", "jobs", "backup", "restore", "plugins"] as const;
export type CoreCommand = (typeof CORE_COMMANDS)[number];

// Settings `any` by default, as for plugin definitions.
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

// parseArgs takes "-5" for a flag: a number below zero is kept as a value (`--credits -5`, `accounts grant ID -5`),
// so corrections need no `--`. Positional ones are marked before parsing and unmarked after.
const NEGATIVE = /^-\d+(\.\d+)?$/;
const NEGATIVE_MARK = "\u0000";

/** The arguments with every negative number made a value: joined to an option that takes one, else marked positional. */
export function protectNegatives(argv: string[], takesValue: (option: string) => boolean): string[] {
  const out: string[] = [];
  for (const arg of argv) {
    const prev = out.at(-1) ?? "";
    if (!NEGATIVE.test(arg)) out.push(arg);
    else if (prev.startsWith("--") && !prev.includes("=") && takesValue(prev.slice(2))) out[out.length - 1] = `${prev}=${arg}`;
    else out.push(NEGATIVE_MARK + arg);
  }
  return out;
}

/** The positionals as typed, once parseArgs is done with them. */
export function unmarkNegatives(positionals: string[]): string[] {
  return positionals.map((p) => (p.startsWith(NEGATIVE_MARK) ? p.slice(NEGATIVE_MARK.length) : p));
}

/** The usage lines of the commands that begin with `words` (`accounts`, or `topups complete`), as the help prints them. */
function usageLines(help: string, words: string): string[] {
  return help.split("\n").filter((l) => l === `  vitrin ${words}` || l.startsWith(`  vitrin ${words} `));
}

/** One command's lines of the usage (`help accounts`, `accounts --help`), or null when there is no such command. */
function commandUsage(help: string, word: string): string | null {
  const lines = usageLines(help, word);
  return lines.length > 0 ? ["Usage:", ...lines].join("\n") : null;
}

/**
 * A usage error (exit 2): one line on stderr beginning `error:`, as every refusal the command line prints, so an
 * operator's script or eye finds the same shape for a missing id as for a bad value.
 */
export function usageError(message: string): number {
  console.error(`error: ${message}`);
  return 2;
}

/**
 * Words a command cannot take (a missing id, a subcommand it does not have, a word too many) as one usage error: the
 * synopsis of the subcommand typed (`usage: vitrin topups complete TOP_UP_ID [--json]`), or of the command when it
 * has no subcommands (`backup PATH`), else the subcommands it has. `help` is the usage main.ts prints for --help.
 */
export function wrongWords(help: string, command: string, sub: string | undefined): number {
  // A line's synopsis ends where its description begins, two spaces or more after it.
  const synopses = (lines: string[]) => lines.map((l) => l.trim().split(/\s{2,}/)[0]!).join("; ");
  const typed = sub === undefined ? [] : usageLines(help, `${command} ${sub}`);
  if (typed.length > 0) return usageError(`usage: ${synopses(typed)}`);
  const all = usageLines(help, command);
  const subs = [...new Set(all.map((l) => l.trim().split(/\s+/)[2] ?? "").filter((w) => /^[a-z][a-z-]*$/.test(w)))];
  if (subs.length === 0) return usageError(all.length > 0 ? `usage: ${synopses(all)}` : unknownCommand(command));
  const what = sub === undefined ? `vitrin ${command} needs one of` : `unknown command "${command} ${sub}"; vitrin ${command} has`;
  return usageError(`${what}: ${subs.join(", ")} (vitrin help ${command} shows their usage)`);
}

/**
 * Whether the words typed fit one of the usage's lines for `command sub`: the subcommand exists and every required
 * argument (an upper-case word outside brackets, `ID AMOUNT`) is there. Checked before a command opens anything, so
 * a typing slip is said as such rather than as a missing database.
 */
export function wordsFit(help: string, command: string, sub: string | undefined, rest: string[]): boolean {
  if (sub === undefined) return false;
  return usageLines(help, `${command} ${sub}`).some((line) => {
    const words = line.trim().split(/\s{2,}/)[0]!.split(/\s+/).slice(3);
    return words.filter((w) => /^[A-Z][A-Z_]*$/.test(w)).length <= rest.length;
  });
}

/** A refusal of node:util's parseArgs (an unknown option, a value missing): a usage error. */
export const isParseArgsError = (e: unknown): e is Error & { code: string } => (e as { code?: unknown } | null)?.code?.toString().startsWith("ERR_PARSE_ARGS") === true;

/**
 * parseArgs's refusal in our words: its text for an unknown option goes on about `--` and positionals (and its quotes
 * do not pair once cut), so that one is said plainly; its others (a value missing) are short and kept.
 */
export function parseArgsMessage(e: Error & { code: string }): string {
  const option = e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? /'([^']+)'/.exec(e.message)?.[1] : undefined;
  const said = option ? `unknown option ${option}` : e.message.replace(/\.$/, "");
  return `${said}; vitrin help lists the options`;
}

/** The message for a first word that is no command (a usage error: the help that lists them is named, not printed). */
export function unknownCommand(word: string): string {
  return `unknown command "${word}"; vitrin help lists the commands`;
}

/** --help, help, help COMMAND, COMMAND --help: exit 0 with the usage asked for; 2 for a command that does not exist. */
export function printHelp(help: string, word: string | undefined): number {
  if (word === undefined) {
    console.log(help);
    return 0;
  }
  const lines = commandUsage(help, word);
  if (!lines) return usageError(unknownCommand(word));
  console.log(lines);
  return 0;
}
