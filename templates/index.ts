// The built-in templates: the composition root hands this list to the template registry (imported statically, so
// `bun build --compile` bundles them into the binary). A template added to this folder is listed here too (a test
// compares the two).
import type { TemplateDefinition } from "../src/templates/api";
import cleanCard from "./clean-card";
import featureSplit from "./feature-split";
import flashSale from "./flash-sale";
import minimalLuxe from "./minimal-luxe";
import showcase from "./showcase";
import spotlight from "./spotlight";

export const BUILTIN_TEMPLATES = [cleanCard, featureSplit, flashSale, minimalLuxe, showcase, spotlight] as unknown as TemplateDefinition[];
