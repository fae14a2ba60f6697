// A secret or link shown for copying (API tokens at creation, webhook secrets, login links): a read-only labelled
// input that selects itself on focus and a Copy button; without the clipboard API (plain http) the text is selected.
import { useId, useRef, useState } from "preact/hooks";
import { defineMessages } from "../i18n";
import { Button } from "./button";

const useMessages = defineMessages({
  en: { copy: "Copy", copied: "Copied to the clipboard.", selected: "Selected: press Ctrl+C (⌘C) to copy." },
  tr: { copy: "Kopyala", copied: "Panoya kopyalandı.", selected: "Seçildi: kopyalamak için Ctrl+C (⌘C) tuşlayın." },
});

type Props = { label: string; value: string; hint?: string };

export function CopyField({ label, value, hint }: Props) {
  const m = useMessages();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [note, setNote] = useState("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setNote(m("copied"));
    } catch {
      // No clipboard (an http origin, a refused permission): select the text so the keyboard shortcut copies it.
      input.current?.focus();
      input.current?.select();
      setNote(m("selected"));
    }
  };
  return (
    <div class="field copy-field">
      <label for={id}>{label}</label>
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      <div class="copy-row">
        <input
          ref={input}
          id={id}
          class="mono"
          readOnly
          value={value}
          spellcheck={false}
          aria-describedby={hint ? `${id}-hint` : undefined}
          onFocus={(e) => e.currentTarget.select()}
        />
        <Button onClick={copy}>{m("copy")}</Button>
      </div>
      <p class="hint" role="status">
        {note}
      </p>
    </div>
  );
}
