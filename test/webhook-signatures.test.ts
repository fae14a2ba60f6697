// Standard Webhooks signatures: the specification's example, and our signatures checked by an independent verifier.
import { describe, expect, test } from "bun:test";
import { sign, signatureHeader } from "../src/webhooks/sign";
import { independentVerify } from "./support/webhook-receiver";

describe("Standard Webhooks signatures", () => {
  // The example from the Standard Webhooks specification.
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  const id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  const ts = 1614265330;
  const body = '{"test": 2432232314}';

  test("our signature matches the specification's example", () => {
    expect(sign(secret, id, ts, body)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  test("a valid signature verifies independently", async () => {
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature: sign(secret, id, ts, body) }, body, ts)).toBe(true);
  });

  test("a tampered body fails", async () => {
    const signature = sign(secret, id, ts, body);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body.replace("2", "3"), ts)).toBe(false);
  });

  test("a wrong secret fails", async () => {
    const signature = sign("whsec_" + btoa("another secret of 32 bytes......"), id, ts, body);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body, ts)).toBe(false);
  });

  test("an old or a future timestamp fails", async () => {
    const signature = sign(secret, id, ts, body);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body, ts + 301)).toBe(false);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature }, body, ts - 301)).toBe(false);
  });

  test("several signatures of which one is valid verify", async () => {
    const other = "whsec_" + btoa("rotated-out secret, 32 bytes....");
    const header = signatureHeader([other, secret], id, ts, body);
    expect(header.split(" ")).toHaveLength(2);
    expect(await independentVerify(secret, { id, timestamp: String(ts), signature: header }, body, ts)).toBe(true);
  });

  test("the secret works with and without the whsec_ prefix", () => {
    expect(sign(secret.slice(6), id, ts, body)).toBe(sign(secret, id, ts, body));
  });
});
