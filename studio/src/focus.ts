// Keeps keyboard users in place after an action changes the page under them (a revoked token's row, a deleted
// endpoint, a new product, another page): focus moves to the message that says what happened, the changed element or
// the new page's heading, never back to <body>.
import { useEffect, useRef } from "preact/hooks";

/** How many modal dialogs are open, and what asked for the focus while one was (the page behind is inert then). */
let dialogsOpen = 0;
let afterDialog: HTMLElement | null = null;

/**
 * Focuses `el`. While a modal dialog is open the page behind it cannot take the focus, and closing the dialog gives
 * the focus back to the button that opened it (gone when the action removed its row): so the element is kept and
 * focused again once the dialog has closed.
 */
export function moveFocus(el: HTMLElement | null | undefined): void {
  if (!el) return;
  el.focus();
  if (dialogsOpen > 0) afterDialog = el;
}

/** Called by Dialog as it opens: focus asked for before belongs to the page as it was. */
export function dialogOpened(): void {
  dialogsOpen += 1;
  afterDialog = null;
}

/** Called by Dialog right after it closed (and the browser put the focus back): the focus asked for meanwhile wins. */
export function dialogClosed(): void {
  dialogsOpen = Math.max(0, dialogsOpen - 1);
  const el = afterDialog;
  afterDialog = null;
  if (el?.isConnected) el.focus();
  else if (document.activeElement === document.body) document.getElementById("main")?.focus();
}

/** A ref for a message container (give it tabIndex={-1}) that takes the focus whenever `message` becomes non-empty. */
export function useFocusOnMessage<T extends HTMLElement>(message: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (message) moveFocus(ref.current);
  }, [message]);
  return ref;
}

/** Set on an in-app navigation: the next page to show puts the focus on its heading (see Page). */
let headingWanted = false;

export function wantHeadingFocus(): void {
  headingWanted = true;
}

/** Whether a page just navigated to should take the focus to its heading (once per navigation). */
export function takeHeadingFocus(): boolean {
  const wanted = headingWanted;
  headingWanted = false;
  return wanted;
}
