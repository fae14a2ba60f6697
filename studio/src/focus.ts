// Keeps keyboard users in place after an action removes the control they used (a revoked token's row, a deleted
// endpoint): focus moves to the message that says what happened.
import { useEffect, useRef } from "preact/hooks";

/** A ref for a message container (give it tabIndex={-1}) that takes the focus whenever `message` becomes non-empty. */
export function useFocusOnMessage<T extends HTMLElement>(message: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (message) ref.current?.focus();
  }, [message]);
  return ref;
}
