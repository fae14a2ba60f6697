// The kernel: what every part of vitrin may use and what uses nothing of ours — the error catalogue, the clock, ids,
// the logger, the metadata rules products and videos share, and a checked folder of this user's under /tmp.
export * from "./errors";
export * from "./clock";
export * from "./ids";
export * from "./log";
export * from "./metadata";
export * from "./embedded-path";
export * from "./import-error";
export * from "./user-tmp";
export { plainMessage } from "./validation-messages";
