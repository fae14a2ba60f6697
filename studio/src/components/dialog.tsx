// A modal dialog on the native <dialog> element: focus moves in and back, Escape closes, the heading labels it.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { useT } from "../i18n";
import { Button } from "./button";

type Props = { open: boolean; title: string; onClose(): void; children: ComponentChildren; actions?: ComponentChildren; closeLabel?: string };

export function Dialog({ open, title, onClose, children, actions, closeLabel }: Props) {
  const t = useT();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      <div class="dialog-body">{children}</div>
      <div class="dialog-actions">
        {actions}
        <Button onClick={onClose}>{closeLabel ?? t("common.close")}</Button>
      </div>
    </dialog>
  );
}
