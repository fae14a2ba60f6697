// The logger writes each line as the JSON of {time, level, msg, ...bound fields, ...the line's fields}: the quick
// path that skips building that object (src/kernel/log.ts, fastLine) must give the same text for every shape.
import { expect, test } from "bun:test";
import { createLogger } from "../src/kernel";

type Fields = Record<string, unknown>;

/** The line as written (raw text: parsing it would hide a repeated key or a key out of order). */
function written(bound: Fields, fields: Fields | undefined): string {
  const lines: string[] = [];
  createLogger("debug", (chunk) => lines.push(chunk), {}, false).child(bound).warn('say "hi" ü', fields);
  expect(lines).toHaveLength(1);
  expect(lines[0]!.endsWith("}\n")).toBe(true);
  return lines[0]!.slice(0, -1);
}

function expected(bound: Fields, fields: Fields | undefined, time: unknown): string {
  const record: Fields = { time, level: "warn", msg: 'say "hi" ü', ...bound, ...fields };
  if (record.err instanceof Error) record.err = { name: record.err.name, message: record.err.message, stack: record.err.stack };
  return JSON.stringify(record);
}

const shapes: [string, Fields, Fields | undefined][] = [
  ["no fields", {}, undefined],
  ["empty fields", {}, {}],
  ["an access-log line", {}, { request_id: "req_1", method: "GET", route: "/v1/products", path: "/v1/products", status: 200, ms: 0.12 }],
  ["bound fields before the line's", { component: "jobs", worker: 2 }, { job: "j_1", attempt: 3 }],
  ["a field that replaces a bound one", { component: "jobs" }, { component: "webhooks", n: 1 }],
  ["a field named msg", {}, { msg: "replaced", other: true }],
  ["an error", {}, { err: new Error("boom"), at: "x" }],
  ["integer-like keys (JavaScript orders them first)", {}, { z: 1, "7": "seven" }],
  ["a bound time", { time: "bound" }, { a: 1 }],
  ["undefined, nested and dated values", { gone: undefined }, { list: [1, { n: null }], when: new Date(0), nothing: undefined }],
];

for (const [name, bound, fields] of shapes) {
  test(`a log line with ${name} is the JSON of its merged record`, () => {
    const line = written(bound, fields);
    expect(line).toBe(expected(bound, fields, (JSON.parse(line) as Fields).time));
  });
}
