// Plain words for schema validation failures, of request bodies and queries and of templates' prompts alike: TypeBox
// says "Expected string length less or equal to 200" or "Expected union value"; a client reading a 422 should be told
// what the field must be instead.

/** A schema as TypeBox reports it with an error: only the keywords the wording looks at. */
type SchemaLike = {
  type?: unknown;
  error?: unknown;
  pattern?: unknown;
  const?: unknown;
  anyOf?: SchemaLike[];
  minLength?: unknown;
  format?: unknown;
  [kind: symbol]: unknown;
};

/** Patterns whose meaning a client cannot be expected to read from the regular expression itself. */
const PATTERN_WORDS: Record<string, string> = {
  "\\S": "must not be blank",
  "^[a-z]{3}$": "must be a lowercase three-letter currency code, like usd",
};

const characters = (n: number) => `${n} character${n === 1 ? "" : "s"}`;

/** TypeBox's message for one failure, in plain words; a message it does not know is passed on unchanged. */
export function plainMessage(message: string, schema: unknown, field: string): string {
  const s = (schema ?? {}) as SchemaLike;
  if (message === "Unexpected property") return "is not a known field";
  if (message === "Expected union value") {
    const choices = literalChoices(s);
    // A choice among fixed words (aspect_ratio, status…) names them.
    if (choices) return `must be one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`;
    // Else a union that says in its own words what it takes (t.Union([...], { error: "..." })), else its members' kinds.
    return typeof s.error === "string" ? s.error : `must be ${unionWords(s, field)}`;
  }
  let m: RegExpMatchArray | null;
  if ((m = message.match(/^Expected number to be a multiple of (\S+)$/))) return m[1] === "1" ? "must be a whole number" : `must be a multiple of ${m[1]}`;
  if ((m = message.match(/^Expected object to have at least (\d+) properties$/))) {
    return m[1] === "1" ? "give at least one field to change" : `give at least ${m[1]} fields`;
  }
  if ((m = message.match(/^Expected string length less or equal to (\d+)$/))) return `must be at most ${characters(Number(m[1]))}`;
  if ((m = message.match(/^Expected string length greater or equal to (\d+)$/))) {
    return m[1] === "1" ? "must not be empty" : `must be at least ${characters(Number(m[1]))}`;
  }
  if (message.startsWith("Expected string to match ")) {
    const pattern = typeof s.pattern === "string" ? s.pattern : message.slice("Expected string to match ".length).replace(/^'|'$/g, "");
    return PATTERN_WORDS[pattern] ?? `must match the pattern ${pattern}`;
  }
  if (message === "Expected kind 'File'") return "must be a file";
  if ((m = message.match(/^Expected (?:number|integer) to be (greater|less) (or equal to|than) (\S+)$/))) {
    const [, side, how, bound] = m;
    if (how === "or equal to") return `must be at ${side === "greater" ? "least" : "most"} ${bound}`;
    return `must be ${side === "greater" ? "more" : "less"} than ${bound}`;
  }
  return KIND_WORDS[message] ?? message;
}

/** TypeBox's "Expected <kind>" for a value of the wrong kind, and its word for a missing field. */
const KIND_WORDS: Record<string, string> = {
  "Expected required property": "is required",
  "Expected string": "must be a string",
  "Expected number": "must be a number",
  "Expected integer": "must be a whole number",
  "Expected boolean": "must be true or false",
  "Expected object": "must be an object",
  "Expected array": "must be an array",
  "Expected null": "must be null",
};

/** The words of a union of literals (`t.Union([t.Literal("a"), …])`), or null for any other schema. */
function literalChoices(schema: SchemaLike): unknown[] | null {
  const anyOf = schema.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length === 0 || !anyOf.every((s) => s && "const" in s)) return null;
  return anyOf.map((s) => s.const);
}

/** "a URL or null", "an object or null"…: what a union without its own words takes, read from its members. */
function unionWords(schema: SchemaLike, field: string): string {
  const members = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const words = [...new Set(members.map((m) => memberWords(m, field)))];
  if (words.length === 0 || words.includes(null)) return "a value of the documented type";
  return words.join(" or ");
}

function memberWords(member: SchemaLike, field: string): string | null {
  switch (member.type) {
    case "string":
      // A field named *url takes a URL: "" or "not a url" fails the union, and saying so beats "a string".
      if (/(^|[._])url$/.test(field) || member.format === "uri") return "a URL";
      return typeof member.minLength === "number" && member.minLength > 0 ? "a non-empty string" : "a string";
    case "null":
      return "null";
    case "object":
      return "an object";
    case "array":
      return "a list";
    case "boolean":
      return "true or false";
    case "number":
    case "integer":
      return "a number";
    default:
      return null;
  }
}
