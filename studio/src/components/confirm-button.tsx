// A button whose action needs a second yes (revoke a token, rotate a secret): it opens a dialog saying what happens,
// and only the dialog's own button does it (the dialog opens on Cancel); an error stays in the dialog with the API's
// message.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useT } from "../i18n";
import { Alert } from "./alert";
import { Button } from "./button";
import { Dialog } from "./dialog";

type Props = {
  /** The button's text (also what the dialog's confirming button says unless `confirmLabel` is given). */
  label: string;
  /** An accessible name when the visible label alone is ambiguous in a list ("Revoke token ci-bot"). */
  ariaLabel?: string;
  title: string;
  children: ComponentChildren;
  confirmLabel?: string;
  variant?: "primary" | "secondary" | "danger" | "ghost";
  /** Runs on confirmation; a thrown error's text is shown, a returned promise keeps the dialog busy. */
  onConfirm(): Promise<void>;
  /** Turns a failure into the text to show. */
  describe(e: unknown): string;
};

export function ConfirmButton({ label, ariaLabel, title, children, confirmLabel, variant = "danger", onConfirm, describe }: Props) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      setOpen(false);
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button variant={variant} aria-label={ariaLabel} onClick={() => (setError(null), setOpen(true))}>
        {label}
      </Button>
      <Dialog
        open={open}
        title={title}
        onClose={() => setOpen(false)}
        closeLabel={t("common.cancel")}
        // Anything but a plain primary action (a revoke, a delete, a rotated secret) starts on Cancel.
        cancelFirst={variant !== "primary"}
        actions={
          <Button variant={variant === "danger" ? "danger" : "primary"} busy={busy} onClick={confirm}>
            {confirmLabel ?? label}
          </Button>
        }
      >
        {children}
        {error && <Alert tone="error">{error}</Alert>}
      </Dialog>
    </>
  );
}
