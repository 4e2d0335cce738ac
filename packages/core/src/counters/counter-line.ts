import { MAX_EVENT_BYTES, cutName, jsonString, numberText } from '../format/line-format.js';

/** A counter sample's series: arg name → number. */
export type CounterValues = Readonly<Record<string, number>>;

/**
 * The arg that names the series of a sample whose value was NaN or ±Infinity, which JSON cannot
 * hold: such a series is written `null` (a numeric column stays numeric for readers that type
 * columns) and this object says what it was: `"loss":null,"non_finite":{"loss":"NaN"}`.
 */
export const NON_FINITE_KEY = 'non_finite';

/** What counterLine could not write as given; each kind is told once (the tracer's warnOnce). */
export type CounterProblem = 'non-finite' | 'not-a-number' | 'getter' | 'too-long';
export type CounterWarn = (problem: CounterProblem, message: string) => void;

/** Keys the tracer writes in a counter's args: a series of that name is renamed `user_<key>`, as event args are. */
const RESERVED = new Set(['hhash', NON_FINITE_KEY]);

const TAIL = '}}\n';
/** `,"non_finite":{` and its closing brace. */
const MARK_BYTES = NON_FINITE_KEY.length + 6;

/**
 * One counter record (`"ph":"C"`) in DFTracer's field order, as COMMON's agreed format says:
 * `{"id":N,"name":"memory","cat":"sys","pid":P,"tid":T,"ts":US,"ph":"C","args":{"hhash":"…","rss":…}}`.
 * No `dur`, `level` or `p_idx`: a counter is a point in time, not a span. Numbers are written as
 * JavaScript prints them (the shortest text that reads back as the same double: numberText, as
 * event args); non-finite ones as `null` plus the NON_FINITE_KEY marker. A getter that throws, a
 * value that is not a number, or series past the 16 KiB line cap are left out and told to `warn`;
 * names, categories and keys are cut at 1024 characters like events'. Null when no series is left.
 */
export function counterLine(id: number, name: string, cat: string, pid: number, tid: number, ts: number, hhash: string, values: CounterValues, warn?: CounterWarn): string | null {
  const pieces: string[] = [];
  const marks: string[] = [];
  try {
    for (const key in values) {
      let v: unknown;
      try {
        v = values[key];
      } catch (e) {
        warn?.('getter', `counter ${name}: reading values.${key} threw (${errorText(e)}); that series is left out of the samples where it throws`);
        continue;
      }
      if (typeof v !== 'number') {
        warn?.('not-a-number', `counter ${name}: values.${key} is a ${v === null ? 'null' : typeof v}, not a number; left out`);
        continue;
      }
      const k = jsonString(RESERVED.has(key) ? `user_${key}` : cutName(key));
      if (Number.isFinite(v)) {
        pieces.push(`,${k}:${numberText(v)}`);
        marks.push('');
      } else {
        warn?.('non-finite', `counter ${name}: values.${key} is ${v}; written as null with "${NON_FINITE_KEY}":{"${key}":"${v}"} (JSON has no ${v}); further non-finite values are written the same way`);
        pieces.push(`,${k}:null`);
        marks.push(`${k}:${numberText(v)}`);
      }
    }
  } catch (e) {
    // Enumerating the object itself threw (a Proxy): nothing of it can be trusted.
    warn?.('getter', `counter ${name}: its values could not be read (${errorText(e)}); that sample is left out`);
    return null;
  }
  if (pieces.length === 0) return null;
  const head = `{"id":${id},"name":${jsonString(cutName(name))},"cat":${jsonString(cutName(cat))},"pid":${pid},"tid":${tid},"ts":${Math.floor(ts)},"ph":"C","args":{"hhash":"${hhash}"`;
  const n = fitting(head, pieces, marks);
  if (n < pieces.length) warn?.('too-long', `counter ${name}: ${pieces.length - n} of its ${pieces.length} series left out, the record would exceed the 16 KiB line cap`);
  if (n === 0) return null;
  let line = head;
  let mark = '';
  for (let i = 0; i < n; i++) {
    line += pieces[i];
    if (marks[i] !== '') mark += `${mark === '' ? '' : ','}${marks[i]}`;
  }
  if (mark !== '') line += `,"${NON_FINITE_KEY}":{${mark}}`;
  return line + TAIL;
}

/** How many of the series fit in a line of at most MAX_EVENT_BYTES, in order (linear in their bytes). */
function fitting(head: string, pieces: readonly string[], marks: readonly string[]): number {
  let units = head.length + TAIL.length + MARK_BYTES;
  for (let i = 0; i < pieces.length; i++) units += pieces[i]!.length + marks[i]!.length + 1;
  if (3 * units <= MAX_EVENT_BYTES) return pieces.length; // at most 3 UTF-8 bytes per UTF-16 unit
  let bytes = Buffer.byteLength(head) + TAIL.length + MARK_BYTES;
  for (let i = 0; i < pieces.length; i++) {
    bytes += Buffer.byteLength(pieces[i]!) + (marks[i] === '' ? 0 : Buffer.byteLength(marks[i]!) + 1);
    if (bytes > MAX_EVENT_BYTES) return i;
  }
  return pieces.length;
}

function errorText(e: unknown): string {
  try {
    return e instanceof Error ? e.message : String(e);
  } catch {
    return 'an unprintable value';
  }
}

/** A measured fraction (a percentage, a utilization) to the 3 decimals it carries: samplers round their own figures. */
export function thousandths(v: number): number {
  return Math.round(v * 1000) / 1000;
}
