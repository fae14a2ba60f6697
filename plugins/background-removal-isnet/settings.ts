// The ISNet plugin's settings (model folder, threads, memory arena, idle unload), read at start through the plugin kit
// and listed in the configuration table.
import { resolve } from "node:path";
import { boolean, integer, type PluginSettings } from "../../src/plugins";

export type IsnetSettings = {
  modelDir: string;
  threads: number;
  memoryArena: boolean;
  idleMs: number;
};

export const isnetSettings: PluginSettings<IsnetSettings> = {
  modelDir: {
    env: "VITRIN_MODEL_DIR",
    unset: ({ config }) => resolve(config.dataDir, "models", "isnet"),
    default: "$VITRIN_DATA_DIR/models/isnet",
    doc: "Background-removal model folder in transformers.js layout (config.json, preprocessor_config.json, onnx/model.onnx). The bundled ISNet model is assembled here; point it at another export (e.g. RMBG-1.4) to swap models.",
    parse: (r) => resolve(r.trim()),
  },
  threads: {
    env: "VITRIN_DEKUPE_THREADS",
    unset: () => String(Math.max(1, navigator.hardwareConcurrency || 1)),
    default: "(number of CPU cores)",
    doc: "Threads one background-removal inference may use.",
    parse: integer(1, 256),
  },
  memoryArena: {
    env: "VITRIN_DEKUPE_MEMORY_ARENA",
    default: "true",
    doc: "Keep ONNX Runtime's memory arena between background-removal runs: with the int8 model ~40 % faster inference for ~30 MB more memory while the model is loaded. false gives the activations back after every run.",
    parse: boolean,
  },
  idleMs: {
    env: "VITRIN_MODEL_IDLE_MS",
    default: "30000",
    doc: "Unload the background-removal model after this long without work, to give its memory back (~0.25 GB with the int8 model and its arena; loading it again costs the next cut-out ~0.25 s).",
    parse: integer(0, 86_400_000),
  },
};
