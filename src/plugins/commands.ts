// Commands a plugin adds to the `vitrin` CLI: `main.ts` lists them in --help and runs them with the plugin's settings.
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
