// Marks placed on a product's photo but not yet sent with a Retry, kept in the tab's sessionStorage per product and
// per photo, so leaving the product page and coming back keeps them, while marks made on an earlier photo (the image
// was replaced since) never steer a cut-out of the new one. A Retry that used them or `Clear marks` removes them.
import { useEffect, useState } from "preact/hooks";
import { photoVersion, type Mark } from "./product-hint-marks";

const PREFIX = "vitrin.studio.marks.";

function isMark(value: unknown): value is Mark {
  const m = value as Partial<Mark> | null;
  return !!m && Number.isInteger(m.x) && Number.isInteger(m.y) && typeof m.keep === "boolean";
}

/** The unsent marks saved for the product on this photo; marks saved for another photo are dropped, not returned. */
export function readMarks(productId: string, photo: string): Mark[] {
  try {
    const text = sessionStorage.getItem(PREFIX + productId);
    if (!text) return [];
    const saved = JSON.parse(text) as { photo?: unknown; marks?: unknown };
    if (saved.photo === photoVersion(photo) && Array.isArray(saved.marks) && saved.marks.every(isMark)) return saved.marks;
    sessionStorage.removeItem(PREFIX + productId);
  } catch {
    // Storage off or its value unreadable: the page starts without marks, as it did before they were kept.
  }
  return [];
}

export function writeMarks(productId: string, photo: string, marks: Mark[]): void {
  try {
    if (marks.length > 0) sessionStorage.setItem(PREFIX + productId, JSON.stringify({ photo: photoVersion(photo), marks }));
    else sessionStorage.removeItem(PREFIX + productId);
  } catch {
    // Not kept (storage off or full): the marks still work until the page is left.
  }
}

/**
 * The product page's marks: restored once the product (and so its photo) is known, and again for a new photo; every
 * change is saved, and an empty list (cleared, or used by a Retry) removes what was saved.
 */
export function useSavedMarks(productId: string, photo: string | undefined): [Mark[], (marks: Mark[]) => void] {
  const [marks, setMarks] = useState<Mark[]>([]);
  const version = photo === undefined ? null : photoVersion(photo);
  useEffect(() => {
    setMarks(photo === undefined ? [] : readMarks(productId, photo));
  }, [productId, version]);
  const change = (next: Mark[]) => {
    setMarks(next);
    if (photo !== undefined) writeMarks(productId, photo, next);
  };
  return [marks, change];
}
