// What plugins may use of the native layer besides sharp (./sharp.ts): the files a compiled binary carries, and
// handing freed memory back to the system. Kept out of the kit's face, so a plugin that needs neither loads neither.
export { embedded, giveBackMemory, withLibc, type Embedded, type EmbeddedModel } from "../native";
