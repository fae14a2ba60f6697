// The JSON-line logger: an access-log line written from ready JSON members reads exactly as one built from an object.
import { expect, test } from "bun:test";
import { createLogger } from "../src/kernel";

test("infoJson writes the line info() writes for the same fields, bound fields and escapes included", () => {
  const lines: string[] = [];
  const logger = createLogger("info", (chunk) => lines.push(chunk), { component: "http" }, false);
  const path = '/v1/products/"quoted"\\slash\u00e9';
  const fields = { request_id: "req_1", method: "GET", route: "/v1/products/:id", path, status: 404, ms: 0.37 };
  logger.info("request", fields);
  const members = `"request_id":"req_1","method":"GET","route":"/v1/products/:id","path":${JSON.stringify(path)},"status":404,"ms":0.37`;
  logger.infoJson!("request", members);
  expect(lines).toHaveLength(2);
  const [viaObject, viaMembers] = lines.map((line) => JSON.parse(line));
  // The two lines may be written a millisecond apart: everything but the timestamp is compared.
  expect({ ...viaMembers, time: undefined }).toEqual({ ...viaObject, time: undefined });
  expect(viaMembers.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // Same keys in the same order, so the lines differ at most in their timestamps.
  expect(lines[1].replace(/"time":"[^"]+"/, "")).toBe(lines[0].replace(/"time":"[^"]+"/, ""));
  expect(Object.keys(viaMembers)).toEqual(["time", "level", "msg", "component", ...Object.keys(fields)]);
});

test("infoJson writes nothing below the logger's level", () => {
  const lines: string[] = [];
  createLogger("warn", (chunk) => lines.push(chunk), {}, false).infoJson!("request", '"status":200');
  expect(lines).toEqual([]);
});
