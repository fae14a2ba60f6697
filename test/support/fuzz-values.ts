// Hostile values for the fuzz suite (test/fuzz.test.ts): wrong types, huge and unsafe numbers, unicode, deep-ish
// nesting and extra fields, plus the JSON text they are sent as (number literals JSON.stringify would round or refuse).
import fc from "fast-check";

/** A number literal sent exactly as written: 9007199254740993 or 1e400 cannot survive JSON.stringify. */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** JSON text of `value`, RawNumber literals written as they are. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const parts = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The deepest nesting the fuzz sends; the service refuses deeper than 64 with 400 by design (issue 18, item 1). */
export const MAX_FUZZ_DEPTH = 60;

const rawNumbers = [
  "9007199254740993",
  "-9007199254740993",
  "9007199254740992",
  "1e308",
  "-1e308",
  "1e400",
  "-1e400",
  "4.9e-324",
  "-0",
  "0.5",
  "1.0",
  "1E3",
  "2147483648",
  "-2147483649",
  "123456789012345678901234567890",
  "1000.0000000000001",
  "1e-7",
];

export const nastyNumber: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.integer({ min: -5, max: 2000 }), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.maxSafeInteger(), weight: 1 },
  { arbitrary: fc.constantFrom(0, -1, 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_VALUE, Number.EPSILON), weight: 1 },
  { arbitrary: fc.constantFrom(...rawNumbers).map((text) => new RawNumber(text)), weight: 2 },
  // Whole numbers past 2^53, written out or as powers of ten: they parse, but not to the value sent.
  { arbitrary: fc.bigInt({ min: 2n ** 53n, max: 10n ** 30n }).map((n) => new RawNumber(String(n))), weight: 1 },
  { arbitrary: fc.integer({ min: 10, max: 330 }).map((e) => new RawNumber(`1e${e}`)), weight: 1 },
);

const nastyStrings = [
  "",
  " ",
  "\u0000",
  "\u202e\u0645\u0631\u062d\u0628\u0627",
  "💥🧨\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
  "e\u0301\u0301\u0301\u0301",
  "\ud800",
  "null",
  "true",
  "1000",
  "-1",
  "1e308",
  "NaN",
  "__proto__",
  "constructor",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "'; DROP TABLE accounts; --",
  "en",
  "tr",
  "pt-BR",
  "zz-ZZ",
  "x".repeat(5000),
  "http://127.0.0.1:1/hook",
  "https://localhost/",
  "http://[::1]:1/",
  "ftp://example.invalid/x",
  "javascript:alert(1)",
  "file:///etc/passwd",
  "data:image/png;base64,AAAA",
  "data:text/plain,hello",
  "data:image/png;base64,",
  "usd",
  "USD",
  "%00",
  "%E0%A4%A",
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(...nastyStrings),
);

/** Nested arrays and objects, 1 to MAX_FUZZ_DEPTH levels, around a small leaf. */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 1, max: MAX_FUZZ_DEPTH }), fc.constantFrom("array", "object", "mixed"), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, kind, leaf]) => {
    let v: unknown = leaf;
    for (let i = 0; i < depth; i++) {
      const asArray = kind === "array" || (kind === "mixed" && i % 2 === 0);
      v = asArray ? [v] : { a: v };
    }
    return v;
  });

/** Any one hostile value: a wrong type, a huge number, an odd string, a nested structure. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.constantFrom(null, true, false), weight: 2 },
  { arbitrary: nastyNumber, weight: 3 },
  { arbitrary: nastyString, weight: 3 },
  { arbitrary: fc.array(fc.oneof(nastyString, nastyNumber), { maxLength: 6 }), weight: 1 },
  { arbitrary: fc.dictionary(nastyString, fc.oneof(nastyString, nastyNumber), { maxKeys: 4 }), weight: 1 },
  { arbitrary: deepValue, weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
);

/**
 * A body near `valid`: unchanged, one field dropped, one field given a hostile value, or an extra field added
 * (sometimes named like a prototype key).
 */
export function mutated(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      valid,
      fc.constantFrom("keep", "drop", "replace", "replace", "extra"),
      fc.nat(),
      nastyValue,
      fc.oneof(nastyString, fc.constantFrom("__proto__", "constructor", "id", "account_id", "credits")),
    )
    .map(([body, how, pick, value, extraKey]) => {
      const out: Record<string, unknown> = { ...body };
      const keys = Object.keys(out);
      const key = keys.length ? keys[pick % keys.length] : undefined;
      if (how === "drop" && key) delete out[key];
      else if (how === "replace" && key) out[key] = value;
      else if (how === "extra") Object.defineProperty(out, extraKey, { value, enumerable: true, writable: true, configurable: true });
      return out;
    });
}

/** Text that is not one JSON document: truncated, doubled, BOM-led, comments, or plain words. */
export const brokenJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", "{", "}", "[", "{\"a\":", "{\"a\":1,}", "{'a':1}", "{}{}", "\ufeff{}", "/* c */{}", "nul", "undefined", "NaN", "{\"a\":1,\"a\":2}", "\"\\ud800\""),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
);
