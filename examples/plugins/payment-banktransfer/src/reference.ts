// Transfer references: what a payer writes on a bank transfer so the operator can tell which top-up it pays. Random
// (nanoid, from npm: bundled into the plugin's one file), short, without look-alike characters, with a check character.
import { customAlphabet } from "nanoid";

/** 31 symbols: digits and capitals without 0/O and 1/I, which bank statements and handwriting mix up. */
export const ALPHABET = "3456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const BODY_LENGTH = 8;
const body = customAlphabet(ALPHABET, BODY_LENGTH);

/**
 * The check character: the body's symbols weighted 1…8, summed modulo 31. The modulus is prime and the weights
 * differ, so one mistyped character and two swapped neighbours always change it.
 */
function checkCharacter(symbols: string): string {
  let sum = 0;
  for (let i = 0; i < symbols.length; i++) sum += (i + 1) * ALPHABET.indexOf(symbols[i]!);
  return ALPHABET[sum % ALPHABET.length]!;
}

/** A new reference, e.g. "VT-7K3Q-9XAMD": "VT", four symbols, four more and the check character. */
export function newReference(): string {
  const symbols = body();
  return `VT-${symbols.slice(0, 4)}-${symbols.slice(4)}${checkCharacter(symbols)}`;
}

/**
 * A reference as someone typed it from a bank statement (any case, spaces or dashes anywhere) in its printed form, or
 * null when it cannot be one: wrong length, a symbol outside the alphabet, or a check character that does not match.
 */
export function readReference(typed: string): string | null {
  const compact = typed.toUpperCase().replace(/[\s-]/g, "").replace(/^VT/, "");
  if (compact.length !== BODY_LENGTH + 1 || [...compact].some((c) => !ALPHABET.includes(c))) return null;
  const symbols = compact.slice(0, BODY_LENGTH);
  if (checkCharacter(symbols) !== compact[BODY_LENGTH]) return null;
  return `VT-${symbols.slice(0, 4)}-${compact.slice(4)}`;
}
