export * from "./errors";
export * from "./clock";
export * from "./ids";
export * from "./log";
export * from "./metadata";
export * from "./embedded-path";
export * from "./import-error";
export * from "./user-tmp";
export { plainMessage } from "./validation-messages";
