import { TAG_FALSE, TAG_ISTR, TAG_NUM, TAG_RAW, TAG_STR, TAG_TRUE, type EventColumns } from '../recording/columns.js';
import { ARGS_TAIL, BARE_TAIL, DUR_HEAD, FALSE_TEXT, ID_HEAD, MAX_EVENT_BYTES, NULL_TEXT, PIDX_HEAD, TRUE_TEXT, TS_HEAD, cutText, jsonString, numberText } from './line-format.js';

/**
 * The text formatter: a batch's events as DFTracer E2 text, the reference that the byte formatter
 * (event-bytes.ts, the zlib and plain paths) and the gzip encoder reproduce byte for byte. Both hand
 * formatLine the lines it must cut for length.
 */

/** Per-file constants used while formatting. */
export interface FormatContext {
  /** Interner.kindFrag and keyFrag, or the writer thread's copies of them. */
  readonly kindFrag: readonly string[];
  readonly keyFrag: readonly string[];
  readonly strFrag: readonly string[];
  readonly incMetadata: boolean;
  /** `,"ph":"X","args":{"hhash":"<host hash>","level":` */
  readonly argsHead: string;
  /** Called once per flush that had to cut an oversize event. */
  readonly onTruncated: (count: number) => void;
}

/**
 * Every event of the buffer as DFTracer E2 lines (field order fixed by the format): the string
 * reference that the byte formatter (event-bytes.ts) is tested against.
 */
export function formatEvents(buf: EventColumns, ctx: FormatContext): string {
  const cuts = { count: 0 };
  let text = '';
  let argStart = 0;
  for (let i = 0; i < buf.count; i++) {
    const argEnd = buf.argEnd[i]!;
    text += formatLine(buf, ctx, i, argStart, argEnd, cuts);
    argStart = argEnd;
  }
  if (cuts.count > 0) ctx.onTruncated(cuts.count);
  return text;
}

/** The text of event `i` (its args are [from, to)); `cuts.count` counts lines whose string args were cut. */
export function formatLine(buf: EventColumns, ctx: FormatContext, i: number, from: number, to: number, cuts: { count: number }): string {
  // ts is ~1.7e15: printing its high and low halves separately avoids slow double-to-string.
  // A plugin may hand over any time (small, fractional, NaN): that goes the general way.
  const ts = buf.ts[i]!;
  let tsText: string;
  if (ts >= 1e6 && ts <= Number.MAX_SAFE_INTEGER && ts === Math.floor(ts)) {
    const hi = Math.floor(ts / 1e6);
    if (hi !== tsHi) {
      tsHi = hi;
      tsHiText = String(hi);
    }
    tsText = tsHiText + String(ts - hi * 1e6 + 1e6).slice(1);
  } else tsText = numberText(ts);
  let line = ID_HEAD + buf.id[i]! + ctx.kindFrag[buf.kind[i]!]! + buf.tid[i]! + TS_HEAD + tsText + DUR_HEAD + buf.dur[i]!;
  if (!ctx.incMetadata) return line + BARE_TAIL;
  line += ctx.argsHead + buf.level[i]! + PIDX_HEAD + buf.pidx[i]!;
  if (to > from) line += formatArgs(buf, ctx.keyFrag, ctx.strFrag, from, to, Infinity);
  line += ARGS_TAIL;
  if (line.length > MAX_EVENT_BYTES / 3 && Buffer.byteLength(line) > MAX_EVENT_BYTES) {
    line = truncateLine(buf, ctx, i, from, to, line);
    cuts.count++;
  }
  return line;
}

// The text of the last ts's high half: consecutive events share it.
let tsHi = -1;
let tsHiText = '';

function formatArgs(buf: EventColumns, keyFrag: readonly string[], strFrag: readonly string[], from: number, to: number, maxString: number): string {
  let s = '';
  for (let j = from; j < to; j++) {
    s += keyFrag[buf.argKey[j]!]!;
    switch (buf.argTag[j]) {
      case TAG_NUM:
        s += numberText(buf.argNum[j]!);
        break;
      case TAG_STR: {
        const v = buf.argObj[buf.argNum[j]!]!;
        s += jsonString(v.length > maxString ? cutText(v, maxString) : v);
        break;
      }
      case TAG_RAW: {
        const v = buf.argObj[buf.argNum[j]!]!;
        s += v.length > maxString ? jsonString(cutText(v, maxString)) : v;
        break;
      }
      case TAG_ISTR:
        s += strFrag[buf.argNum[j]!]!; // at most 64 chars: never cut
        break;
      case TAG_TRUE:
        s += TRUE_TEXT;
        break;
      case TAG_FALSE:
        s += FALSE_TEXT;
        break;
      default:
        s += NULL_TEXT;
    }
  }
  return s;
}

/** Cuts the string args of an oversize event until its line fits in MAX_EVENT_BYTES. */
function truncateLine(buf: EventColumns, ctx: FormatContext, i: number, from: number, to: number, line: string): string {
  const head = line.slice(0, line.indexOf(ctx.argsHead));
  const core = head + ctx.argsHead + buf.level[i]! + PIDX_HEAD + buf.pidx[i]!;
  for (let max = 4096; max >= 16; max >>= 2) {
    const l = core + formatArgs(buf, ctx.keyFrag, ctx.strFrag, from, to, max) + ARGS_TAIL;
    if (Buffer.byteLength(l) <= MAX_EVENT_BYTES) return l;
  }
  return core + ',"truncated":true}}\n';
}
