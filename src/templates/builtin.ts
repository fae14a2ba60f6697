// The repository's templates imported statically, so `bun build --compile` bundles them into the binary.
// Keep this list in step with templates/ (a test compares them).
import type { TemplateDefinition } from "./define";
import cleanCard from "../../templates/clean-card";
import featureSplit from "../../templates/feature-split";
import flashSale from "../../templates/flash-sale";
import minimalLuxe from "../../templates/minimal-luxe";
import showcase from "../../templates/showcase";
import spotlight from "../../templates/spotlight";

export const BUILTIN_TEMPLATES = [cleanCard, featureSplit, flashSale, minimalLuxe, showcase, spotlight] as unknown as TemplateDefinition[];
