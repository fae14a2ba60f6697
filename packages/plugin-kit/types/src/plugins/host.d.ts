import { Value } from "@sinclair/typebox/value";
import { attachment, boolean, ConfigError, contentTypeOf, definePlugin, downloadFileName, httpUrl, integer, isSafeKey, NoSubjectError, oneOf, optionalText, optionalUrl, PaymentSignatureError, servedUrl } from "./index";
export declare const PLUGIN_API_VERSION = 1;
export declare const pluginHost: {
    /** Bumped when anything below changes incompatibly; a plugin may refuse to load on a version it does not know. */
    apiVersion: number;
    /** The vitrin release running the plugin. */
    version: string;
    definePlugin: typeof definePlugin;
    PaymentSignatureError: typeof PaymentSignatureError;
    NoSubjectError: typeof NoSubjectError;
    /** Throw it from create or init for a setting the plugin cannot work with: one line at start, exit 2. */
    ConfigError: typeof ConfigError;
    /** Storage keys: whether a key is one the core could have made, and the content type its extension stands for. */
    isSafeKey: typeof isSafeKey;
    contentTypeOf: typeof contentTypeOf;
    /**
     * Named downloads (`url(key, { download })`): the link to a file vitrin serves, asking for the name; and, for links
     * another server answers, the safe name and the Content-Disposition value it must carry.
     */
    servedUrl: typeof servedUrl;
    downloadFileName: typeof downloadFileName;
    attachment: typeof attachment;
    /** Elysia's TypeBox builder, the same `t` the core validates requests with (typed as TypeBox's: TypeBuilder). */
    t: import("./kit-types").TypeBuilder;
    /** TypeBox's value checker: `host.Value.Check(schema, data)`, `host.Value.Errors(schema, data)`. */
    Value: typeof Value;
    /** Parsers for declared settings, the ones the built-in plugins use (`parse: host.parse.integer(1, 100)`). */
    parse: {
        boolean: typeof boolean;
        httpUrl: typeof httpUrl;
        integer: typeof integer;
        oneOf: typeof oneOf;
        optionalText: typeof optionalText;
        optionalUrl: typeof optionalUrl;
    };
};
export type PluginHost = typeof pluginHost;
