// Schema helpers shared by route modules, where Elysia's `t` is looser than a JSON API should be.
import { t } from "elysia";

/** A JSON integer. Elysia's t.Integer also accepts numeric strings ("1000"); a JSON API should not. */
export function jsonInteger(options: { minimum?: number; maximum?: number; description?: string } = {}) {
  return t.Number({ ...options, multipleOf: 1 });
}
