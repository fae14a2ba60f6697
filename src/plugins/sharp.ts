// sharp for plugins, loaded on first use (src/native/sharp.ts says why): import it from the kit, not from "sharp".
export { sharp as default } from "../native";
