// The kernel: what every part of vitrin may use and what uses nothing of ours — the error catalogue, the clock, ids,
// the logger, and the metadata rules products and videos share.
export * from "./errors";
export * from "./clock";
export * from "./ids";
export * from "./log";
export * from "./metadata";
export * from "./embedded-path";
export * from "./import-error";
