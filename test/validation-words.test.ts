// A 422's details say in plain words what a field must be: a value of the wrong kind ("must be true or false", not
// TypeBox's "Expected boolean"), a missing field ("is required"), a number out of range ("must be at least 1"), and an
// unknown query parameter is called one (`?lang=fr`), not a field.
import { expect, test } from "bun:test";
import { plainMessage } from "../src/kernel/validation-messages";
import { sharedService } from "./helpers";

const shared = sharedService();

test("wrong kinds and a missing field in a body are said plainly", async () => {
  const res = await shared.t.json("POST", "/v1/products", { token: shared.token, body: { name: 5, image_url: "https://shop.test/a.jpg", dekupe: "oui" } });
  expect(res.status).toBe(422);
  expect(res.body.details).toEqual(
    expect.arrayContaining([
      { field: "name", message: "must be a string" },
      { field: "dekupe", message: "must be true or false" },
    ]),
  );
  const missing = await shared.t.json("POST", "/v1/products", { token: shared.token, body: { image_url: "https://shop.test/a.jpg" } });
  expect(missing.body.details).toEqual([{ field: "name", message: "is required" }]);
});

test("an unknown query parameter is named as one", async () => {
  const res = await shared.t.json("GET", "/v1/templates?lang=fr", { token: shared.token });
  expect(res.status).toBe(422);
  expect(res.body.details).toEqual([{ field: "lang", message: "is not a known query parameter" }]);
});

test("TypeBox's kinds and bounds in plain words; an unknown message passes through", () => {
  expect(plainMessage("Expected number to be greater or equal to 1000", {}, "amount")).toBe("must be at least 1000");
  expect(plainMessage("Expected integer to be less or equal to 100", {}, "limit")).toBe("must be at most 100");
  expect(plainMessage("Expected number to be greater than 0", {}, "x")).toBe("must be more than 0");
  expect(plainMessage("Expected array", {}, "features")).toBe("must be an array");
  expect(plainMessage("Expected object", {}, "body")).toBe("must be an object");
  expect(plainMessage("Something new", {}, "x")).toBe("Something new");
});
