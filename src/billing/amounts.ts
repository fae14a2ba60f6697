// The one rule for every money and credit amount a caller sends (top-ups, credit grants, opening credits): a safe
// integer within its bounds, else a 422 naming the field. JSON numbers are doubles: 1e308 is "whole", and
// 9007199254740993 arrives as 9007199254740992, so anything from 2^53 up is out of range rather than trusted.
import { errors } from "../kernel";

/** The largest credit grant (or correction) an operator books at once; opening credits share it. */
export const MAX_CREDIT_GRANT = 1_000_000_000;

/**
 * `value` when it is a whole number from `min` to `max` (both safe integers), else a 422 naming `field`, its bounds
 * said in `unit` ("minor units", "credits").
 */
export function checkAmount(field: string, value: unknown, min: number, max: number, unit: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max) return value;
  throw errors.invalidField(field, `must be a whole number of ${unit} from ${min} to ${max}`);
}
