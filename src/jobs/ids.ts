// Ids that sort by creation time (prefix_ + 20 chars, like newId's), for rows written at high rates (jobs, webhook
// messages and attempts): new rows append to the primary-key index instead of dirtying pages all over it (about twice
// the enqueue rate), rows made together are later updated together (one WAL page instead of one each), and equal
// priority and run_at are claimed first in, first out.
import { customAlphabet } from "nanoid";

// In ASCII order, so comparing ids as text compares the numbers they encode.
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SEQ_SPAN = 62 ** 3;
const random = customAlphabet(ALPHABET, 8);

function encode(n: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

let lastMs = -1;
let seq = 0;
// lastMs encoded, worked out once per millisecond rather than once per id.
let msText = "";

/** 9 chars of epoch ms, 3 of an in-process sequence (monotonic even if the clock steps back), 8 random across processes. */
export function newSortableId(prefix: string, nowMs: number): string {
  if (nowMs > lastMs) {
    lastMs = nowMs;
    seq = 0;
    msText = encode(lastMs, 9);
  } else if (++seq >= SEQ_SPAN) {
    lastMs++;
    seq = 0;
    msText = encode(lastMs, 9);
  }
  return `${prefix}_${msText}${encode(seq, 3)}${random()}`;
}

export function newJobId(nowMs: number): string {
  return newSortableId("job", nowMs);
}
