// What vitrin hands to plugins loaded from a folder at run time. A compiled binary has no node_modules, so such a
// plugin cannot import elysia or src/plugins by path: it default-exports `(host) => definition(s)` and takes
// everything from `host` (its `import type` lines are erased and cost nothing).
import { Value } from "@sinclair/typebox/value";
import { t } from "../templates";
import {
  attachment,
  boolean,
  ConfigError,
  contentTypeOf,
  definePlugin,
  downloadFileName,
  httpUrl,
  integer,
  isSafeKey,
  NoSubjectError,
  oneOf,
  optionalText,
  optionalUrl,
  PaymentSignatureError,
  servedUrl,
} from "./index";
import pkg from "../../package.json" with { type: "json" };

export const PLUGIN_API_VERSION = 1;

export const pluginHost = {
  /** Bumped when anything below changes incompatibly; a plugin may refuse to load on a version it does not know. */
  apiVersion: PLUGIN_API_VERSION,
  /** The vitrin release running the plugin. */
  version: pkg.version as string,
  definePlugin,
  PaymentSignatureError,
  NoSubjectError,
  /** Throw it from create or init for a setting the plugin cannot work with: one line at start, exit 2. */
  ConfigError,
  /** Storage keys: whether a key is one the core could have made, and the content type its extension stands for. */
  isSafeKey,
  contentTypeOf,
  /**
   * Named downloads (`url(key, { download })`): the link to a file vitrin serves, asking for the name; and, for links
   * another server answers, the safe name and the Content-Disposition value it must carry.
   */
  servedUrl,
  downloadFileName,
  attachment,
  /** Elysia's TypeBox builder, the same `t` the core validates requests with (typed as TypeBox's: TypeBuilder). */
  t,
  /** TypeBox's value checker: `host.Value.Check(schema, data)`, `host.Value.Errors(schema, data)`. */
  Value,
  /** Parsers for declared settings, the ones the built-in plugins use (`parse: host.parse.integer(1, 100)`). */
  parse: { boolean, httpUrl, integer, oneOf, optionalText, optionalUrl },
};

export type PluginHost = typeof pluginHost;
