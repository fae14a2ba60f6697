// Commands a plugin adds to the `vitrin` CLI (`main.ts` lists them in --help and runs them with the plugin's settings),
// and the command line's shared pieces: per-command help and numbers below zero as values.
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

/** One command's lines of the usage (`help accounts`, `accounts --help`), or null when there is no such command. */
function commandUsage(help: string, word: string): string | null {
  const lines = help.split("\n").filter((l) => l === `  vitrin ${word}` || l.startsWith(`  vitrin ${word} `));
  return lines.length > 0 ? ["Usage:", ...lines].join("\n") : null;
}

/** --help, help, help COMMAND, COMMAND --help: exit 0 with the usage asked for; 2 for a command that does not exist. */
export function printHelp(help: string, word: string | undefined): number {
  if (word === undefined) {
    console.log(help);
    return 0;
  }
  const lines = commandUsage(help, word);
  if (lines) console.log(lines);
  else console.error(`unknown command "${word}"\n\n${help}`);
  return lines ? 0 : 2;
}
