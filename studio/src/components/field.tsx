// Form fields: every control has a visible label, an optional hint and an inline error, both tied to the control with
// aria-describedby; aria-invalid marks an error for screen readers.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { useT } from "../i18n";

type FieldProps = {
  label: string;
  hint?: string;
  error?: string;
  required?: boolean;
  /** The id of a hint said elsewhere that also describes this control (a group's, said once for its fields). */
  alsoDescribedBy?: string;
  /** Renders the control with the ids it must carry. */
  children: (control: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean; required?: boolean }) => ComponentChildren;
};

export function Field({ label, hint, error, required, alsoDescribedBy, children }: FieldProps) {
  const t = useT();
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, alsoDescribedBy, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <label for={id}>
        {label}
        {required && <span class="required"> ({t("common.required")})</span>}
      </label>
      {hint && <p class="hint" id={hintId}>{hint}</p>}
      {children({ id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined, required })}
      {error && <p class="field-error" id={errorId}>{error}</p>}
    </div>
  );
}

type InputProps = {
  label: string;
  type?: "text" | "password" | "number" | "email" | "url" | "search";
  name?: string;
  autoComplete?: string;
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number | "any";
  placeholder?: string;
  spellcheck?: boolean;
  /** The keyboard a phone shows ("decimal" for an amount typed as text in the UI's language). */
  inputMode?: "text" | "decimal" | "numeric" | "email" | "url" | "search";
  onBlur?(): void;
  required?: boolean;
  hint?: string;
  error?: string;
  value: string;
  onValue(value: string): void;
};

/** A labelled text input. */
export function TextField({ label, hint, error, required, value, onValue, type = "text", ...rest }: InputProps) {
  return (
    <Field label={label} hint={hint} error={error} required={required}>
      {/* Preact types each input type separately; one text-like input serves them all here. */}
      {(control) => <input {...rest} {...control} type={type as "text"} value={value} onInput={(e) => onValue(e.currentTarget.value)} />}
    </Field>
  );
}

type SelectProps = {
  label: string;
  hint?: string;
  error?: string;
  required?: boolean;
  value: string;
  onValue(value: string): void;
  options: { value: string; label: string }[];
  name?: string;
};

/** A labelled select. */
export function SelectField({ label, hint, error, required, value, onValue, options, name }: SelectProps) {
  return (
    <Field label={label} hint={hint} error={error} required={required}>
      {(control) => (
        <select {...control} name={name} value={value} onChange={(e) => onValue(e.currentTarget.value)}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
