// What Studio keeps of unfinished work in the tab's sessionStorage (video-form drafts, unsent marks, the last top-up
// started), all under one prefix, and its removal on signing out: on a shared computer the next person to sign in on
// the same tab must not find the last one's drafts or marks. The interface language (localStorage) is not work.

/** The prefix of every key Studio writes to sessionStorage (video-draft.ts, product-hint-saved.ts, balance-top-up.tsx). */
export const TAB_WORK_PREFIX = "vitrin.studio.";

export type TabStore = Pick<Storage, "length" | "key" | "removeItem">;

/** Removes every key of Studio's from `store` (the tab's sessionStorage), leaving other sites' or tools' keys alone. */
export function forgetTabWork(store: TabStore): void {
  const keys: string[] = [];
  for (let i = 0; i < store.length; i++) {
    const key = store.key(i);
    if (key?.startsWith(TAB_WORK_PREFIX)) keys.push(key);
  }
  for (const key of keys) store.removeItem(key);
}

/** forgetTabWork on the tab's own sessionStorage, when there is one to reach (storage off: nothing was kept). */
export function forgetThisTabsWork(): void {
  try {
    forgetTabWork(sessionStorage);
  } catch {
    // sessionStorage off or refused: nothing was kept in it.
  }
}
