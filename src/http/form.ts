// multipart/form-data bodies as browsers send them, turned into the object a JSON body would be, so the same schema
// and the same errors apply: the file stays a File, `metadata` comes as JSON text or as Stripe-style metadata[key]
// fields, and "true"/"false" become booleans for the fields that are booleans in JSON.
import { errors, MAX_IMAGE_BYTES } from "../kernel";

/** The routes that take form uploads: POST /v1/products and PATCH /v1/products/:id. Every other route takes JSON. */
export const FORM_ROUTES = /^\/v1\/products(\/[^/]+)?$/;
/**
 * The most a form upload may send, whatever VITRIN_MAX_BODY_BYTES allows: the 5 MB image and 1 MiB for the text
 * fields and part headers (a description and 50 metadata keys are tens of kilobytes). Past it the upload is refused
 * while it streams in, never buffered further.
 */
export const FORM_MAX_BYTES = MAX_IMAGE_BYTES + 1024 * 1024;
/** Fields that are booleans in the JSON body. */
const BOOLEAN_FIELDS = new Set(["dekupe"]);

/** One value of a form field: text, or a file. */
type FormValue = string | File;

export function isFormUpload(contentType: string | undefined, path: string): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type === "multipart/form-data" && FORM_ROUTES.test(path);
}

/** `metadata` sent as one text field: a JSON object, or "" / "null" to remove every key (Stripe's `metadata=`). */
function metadataText(value: FormValue): unknown {
  if (typeof value !== "string") throw errors.invalidField("metadata", "must be text: a JSON object of string values");
  if (value.trim() === "") return null;
  try {
    const parsed = JSON.parse(value) as unknown;
    if (parsed === null || (typeof parsed === "object" && !Array.isArray(parsed))) return parsed;
  } catch {
    // Answered below, as any other text that is not an object.
  }
  throw errors.invalidField("metadata", "must be a JSON object of string values (or metadata[key] fields)");
}

/** Fields that are files. */
const FILE_FIELDS = new Set(["image"]);

/**
 * A file input left empty: browsers still send the part, with no file name and no bytes. Any empty part of a file
 * field counts as none (an empty file could never be an image anyway).
 */
function emptyFile(name: string, value: FormValue): boolean {
  if (!FILE_FIELDS.has(name)) return false;
  return value === "" || (typeof value !== "string" && value.size === 0);
}

/** The form's fields as a JSON body's object; a field sent twice, or malformed form data, is refused. */
export async function parseForm(bytes: Uint8Array, contentType: string): Promise<Record<string, unknown>> {
  let form: Awaited<ReturnType<Response["formData"]>>;
  try {
    form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw errors.badRequest("The request body is not valid multipart/form-data.");
  }
  const body: Record<string, unknown> = {};
  // No prototype: a field named metadata[__proto__] is an ordinary key, as in a JSON body.
  const keyed: Record<string, string> = Object.create(null);
  let anyKeyed = false;
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name).filter((v) => !emptyFile(name, v));
    const key = /^metadata\[(.*)\]$/.exec(name)?.[1];
    const field = key === undefined ? name : `metadata.${key}`;
    if (values.length > 1) throw errors.invalidField(field, "is sent more than once");
    if (values.length === 0) continue;
    const value = values[0];
    if (key === undefined) {
      body[name] = BOOLEAN_FIELDS.has(name) && (value === "true" || value === "false") ? value === "true" : value;
    } else if (typeof value !== "string") {
      throw errors.invalidField(field, "must be text, not a file");
    } else {
      keyed[key] = value;
      anyKeyed = true;
    }
  }
  if (body.metadata !== undefined) {
    if (anyKeyed) throw errors.invalidField("metadata", "send it as JSON text or as metadata[key] fields, not both");
    body.metadata = metadataText(body.metadata as FormValue);
  } else if (anyKeyed) {
    body.metadata = keyed;
  }
  return body;
}
