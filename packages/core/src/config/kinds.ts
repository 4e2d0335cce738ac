/**
 * The kinds of value a setting takes. Each reads a variable's text and a code option's value, and
 * writes the text that gives a child process the same value; `accepted` is what errors and the
 * README say is allowed.
 */

/** What a reader returns for a value it does not accept. */
export const INVALID: unique symbol = Symbol('invalid');
export type Invalid = typeof INVALID;

export interface Kind<T> {
  /** The accepted values of the variable. */
  readonly accepted: string;
  /** The accepted values of the code option, where they are said differently. */
  readonly acceptedOption: string;
  /** A variable's text, trimmed and not empty. */
  fromText(text: string): T | Invalid;
  /** A code option's value (anything a JavaScript caller can pass). */
  fromValue(value: unknown): T | Invalid;
  /** The variable's text that reproduces `value`; undefined when it cannot be written. */
  toText(value: T): string | undefined;
}

const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no']);

export const bool: Kind<boolean> = {
  accepted: '1/true/on/yes or 0/false/off/no',
  acceptedOption: 'true or false',
  fromText(text) {
    const v = text.toLowerCase();
    return TRUE.has(v) ? true : FALSE.has(v) ? false : INVALID;
  },
  fromValue: (v) => (typeof v === 'boolean' ? v : INVALID),
  toText: (v) => (v ? '1' : '0'),
};

export function int(min: number, max: number): Kind<number> {
  const accepted = `an integer from ${min} to ${max}`;
  const inRange = (n: number): number | Invalid => (Number.isInteger(n) && n >= min && n <= max ? n : INVALID);
  return {
    accepted,
    acceptedOption: accepted,
    fromText: (text) => (/^\d+$/.test(text) ? inRange(Number(text)) : INVALID),
    fromValue: (v) => (typeof v === 'number' ? inRange(v) : INVALID),
    toText: String,
  };
}

/** One of a few words, in any case; `aliases` maps other spellings (normalised) to a word. */
export function oneOf<const W extends string>(words: readonly W[], normalise: (s: string) => string, aliases: Readonly<Record<string, W>> = {}): Kind<W> {
  const pick = (s: string): W | Invalid => {
    const v = normalise(s.trim());
    if ((words as readonly string[]).includes(v)) return v as W;
    return aliases[v] ?? INVALID;
  };
  const accepted = words.join(', ');
  return {
    accepted,
    acceptedOption: accepted,
    fromText: pick,
    fromValue: (v) => (typeof v === 'string' ? pick(v) : INVALID),
    toText: (v) => v,
  };
}

export const text: Kind<string> = {
  accepted: 'a non-empty string',
  acceptedOption: 'a non-empty string',
  fromText: (t) => t,
  fromValue: (v) => (typeof v === 'string' && v !== '' ? v : INVALID),
  toText: (v) => v,
};
