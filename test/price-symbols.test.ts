// Prices as shops write them in a video: Japanese with the half-width yen (the full-width ￥ stands apart from its
// figures), Arabic riyals and dirhams without the closing stop that the Latin display font draws as a bullet.
import { expect, test } from "bun:test";
import { formatPrice } from "../src/templates";

test("yen is half-width in Japanese", () => {
  expect(formatPrice(3980, "JPY", "ja")).toBe("¥3,980");
});

test("an Arabic currency symbol keeps its inner stop and drops the closing one", () => {
  expect(formatPrice(189, "SAR", "ar")).toBe("\u200f189\u00a0ر.س\u200f");
  expect(formatPrice(50, "AED", "ar")).toBe("\u200f50\u00a0د.إ\u200f");
});

test("other languages' prices are CLDR's as they were", () => {
  expect(formatPrice(34.9, "EUR", "de")).toBe("34,90\u00a0€");
  expect(formatPrice(24.5, "USD", "en")).toBe("$24.50");
  expect(formatPrice(749, "TRY", "tr")).toBe("₺749");
});
