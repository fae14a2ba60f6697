// A modal dialog on the native <dialog> element: focus moves in (to Cancel first when the action destroys something)
// and back, Escape closes, the heading labels it; focus asked for by the page while it was open is kept for after.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { dialogClosed, dialogOpened } from "../focus";
import { useT } from "../i18n";
import { Button } from "./button";

type Props = {
  open: boolean;
  title: string;
  onClose(): void;
  children: ComponentChildren;
  actions?: ComponentChildren;
  closeLabel?: string;
  /** The dialog confirms something that cannot be undone: the initial focus is on Cancel, so Enter does no harm. */
  cancelFirst?: boolean;
  /** Room for pictures (a cut-out shown large, two side by side) rather than a sentence and two buttons. */
  wide?: boolean;
};

export function Dialog({ open, title, onClose, children, actions, closeLabel, cancelFirst = false, wide = false }: Props) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const shown = useRef(false);
  const titleId = useId();
  const hidden = () => {
    if (!shown.current) return;
    shown.current = false;
    dialogClosed();
  };
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialogOpened();
      shown.current = true;
      dialog.showModal();
      if (cancelFirst) dialog.querySelector<HTMLButtonElement>("[data-cancel]")?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // Removed while open (the action took its row away): the page gets its focus back once the dialog is gone.
  useEffect(() => () => void (shown.current && setTimeout(hidden, 0)), []);
  return (
    <dialog ref={ref} class={wide ? "dialog dialog-wide" : "dialog"} aria-labelledby={titleId} onClose={() => (hidden(), onClose())}>
      <h2 id={titleId}>{title}</h2>
      <div class="dialog-body">{children}</div>
      <div class="dialog-actions">
        {actions}
        <Button data-cancel onClick={onClose}>
          {closeLabel ?? t("common.close")}
        </Button>
      </div>
    </dialog>
  );
}
