// A form's submit in one place: busy while the request runs, and a refusal turned into the form's message and its
// per-field messages (so every form shows an API problem at the field it belongs to, the same way).
import { useState } from "preact/hooks";
import { unplacedErrors } from "../api";
import { fieldsOf, formMessageOf } from "../call";

export type Submit = {
  busy: boolean;
  /** The form's alert: the refusal's message (its field problems show at the fields), or `network`. */
  error: string | null;
  /** Per-field messages of a 422, keyed as the API names the fields (read them with fieldError). */
  fields: Record<string, string>;
  /** The form's onSubmit (also callable without an event, from a button). */
  submit(e?: Event): Promise<void>;
};

/**
 * `action` does the request and what follows a success; a throw becomes `error` and `fields`. `network` is the
 * page's text for a request that never got an answer; `shown` names the fields the form shows, so a problem with any
 * other field is said in the alert rather than lost.
 */
export function useSubmit(action: () => Promise<void>, network: string, shown: string[] = []): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const submit = async (e?: Event) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await action();
    } catch (err) {
      const problems = fieldsOf(err);
      const unplaced = unplacedErrors(problems, shown);
      const message = formMessageOf(err, network);
      setFields(problems);
      setError(unplaced.length ? `${message} (${unplaced.join("; ")})` : message);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, fields, submit };
}
