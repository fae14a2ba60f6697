// `vitrin models install`: assembles (or checks) the bundled ISNet model in VITRIN_MODEL_DIR ahead of the first cut-out,
// e.g. while building a container image.
import type { PluginCommand } from "../../src/plugins";
import { installModel } from "./model";
import type { IsnetSettings } from "./settings";

export const modelsInstall: PluginCommand<IsnetSettings> = {
  words: ["models", "install"],
  usage: "[--json]",
  description: "assemble and verify the background-removal model in VITRIN_MODEL_DIR",
  async run({ settings, logger, print }) {
    const result = await installModel(settings.modelDir, logger);
    // --json in the API's style (snake_case), as every other command prints.
    const { modelDir: model_dir, ...rest } = result;
    print(`model ${result.action}: ${result.file} (${result.bytes} bytes, sha256 ${result.sha256})`, { model_dir, ...rest });
    return 0;
  },
};
