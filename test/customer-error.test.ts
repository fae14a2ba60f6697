// What a customer reads when a job died: a lease that ran out says the server stopped, not which host and process.
import { expect, test } from "bun:test";
import { customerError } from "../src/jobs";

test("a lease that ran out is told without the worker's name; any other error as it was", () => {
  expect(customerError("lease expired: worker vm:25952:d040be50 stopped heartbeating during attempt 3")).toBe(
    "the server working on it stopped before it finished (attempt 3)",
  );
  expect(customerError("ffmpeg failed: exit 1")).toBe("ffmpeg failed: exit 1");
});
