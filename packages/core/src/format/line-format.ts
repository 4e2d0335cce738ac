/**
 * The pieces of a complete-event line (DFTracer's E2 layout), in field order:
 *
 *   {"id":7 ,"name":"read","cat":"POSIX","pid":123,"tid": 123 ,"ts": 1760934170173819 ,"dur": 22
 *   ,"ph":"X","args":{"hhash":"f9ff883caaf21863","level": 1 ,"p_idx": -1 ,"fhash": "…" … }}\n
 *
 * The text formatter (format-events.ts) joins them into text, the byte formatter (event-bytes.ts)
 * writes the same pieces as bytes: both take them from here, so the outputs cannot drift apart.
 */

/** The longest event line written; longer ones have their string args cut (upstream's limit). */
export const MAX_EVENT_BYTES = 16 * 1024;

export const ID_HEAD = '{"id":';
export const TS_HEAD = ',"ts":';
export const DUR_HEAD = ',"dur":';
export const PIDX_HEAD = ',"p_idx":';
/** Closes `args` and the event. */
export const ARGS_TAIL = '}}\n';
/** Ends an event written without args (DFTRACER_INC_METADATA=0). */
export const BARE_TAIL = ',"ph":"X"}\n';
export const TRUE_TEXT = 'true';
export const FALSE_TEXT = 'false';
export const NULL_TEXT = 'null';

/** `,"name":"read","cat":"POSIX","pid":123,"tid":` for one kind of event (name and cat already cut). */
export function kindFragment(name: string, cat: string, pid: number): string {
  return `,"name":${jsonString(name)},"cat":${jsonString(cat)},"pid":${pid},"tid":`;
}

/** `,"ph":"X","args":{"hhash":"<host hash>","level":`: the same for every event of a file. */
export function argsHead(hostHash: string): string {
  return `,"ph":"X","args":{"hhash":"${hostHash}","level":`;
}

/** `,"key":` for an arg key (already renamed or cut by the interner). */
export function keyFragment(key: string): string {
  return `,${jsonString(key)}:`;
}

/**
 * JSON string literal for any JS string. JSON.stringify escapes quotes, backslashes, control
 * characters and lone surrogates (as \udXXX), so every line stays valid JSON and valid UTF-8.
 */
export function jsonString(s: string): string {
  return JSON.stringify(s);
}

/** An arg's number as JSON: non-finite values, which JSON cannot hold, become strings (README). */
export function numberText(v: number): string {
  if (Number.isFinite(v)) return v === 0 ? '0' : String(v); // -0 → 0
  return v > 0 ? '"Infinity"' : v < 0 ? '"-Infinity"' : '"NaN"';
}

/** Names, categories and arg keys are labels: cut to this many UTF-16 units so an event always fits. */
export const MAX_NAME = 1024;

/** A name, category or key cut to MAX_NAME with the marker that says how much was cut. */
export function cutName(s: string): string {
  return s.length > MAX_NAME ? cutText(s, MAX_NAME) : s;
}

/** `s` cut to `max` UTF-16 units with the marker that says how much was cut. */
export function cutText(s: string, max: number): string {
  // Never split a surrogate pair: a lone half would be escaped, not lost, but reads badly.
  let end = max;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…[truncated ${s.length - end} chars]`;
}
