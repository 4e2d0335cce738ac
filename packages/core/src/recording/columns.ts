/**
 * The layout of a batch of events: typed-array columns, declared here once. The recording buffer
 * (EventBuffer) fills them, the tracer hands them to the writer thread by transfer, and the
 * formatter and the gzip encoder read them; all of them take the list from here.
 */

const i32 = (n: number): Int32Array => new Int32Array(n);
const f64 = (n: number): Float64Array => new Float64Array(n);
const u8 = (n: number): Uint8Array => new Uint8Array(n);

/** One entry per event. `argEnd[i]` is where event i's args end in the arg columns. */
const EVENT_COLUMNS = { kind: i32, id: f64, tid: f64, ts: f64, dur: f64, level: i32, pidx: f64, argEnd: i32 } as const;
/** One entry per arg: its interned key, its tag (TAG_* below) and its number or index. */
const ARG_COLUMNS = { argKey: i32, argTag: u8, argNum: f64 } as const;

type Made<T> = { -readonly [K in keyof T]: T[K] extends (n: number) => infer A ? A : never };

/** The arrays of a batch (what crosses to the writer thread). */
export type ColumnArrays = Made<typeof EVENT_COLUMNS> & Made<typeof ARG_COLUMNS>;
export type ColumnName = keyof ColumnArrays;
export type ArgColumnName = keyof typeof ARG_COLUMNS;

export const COLUMN_NAMES = [...Object.keys(EVENT_COLUMNS), ...Object.keys(ARG_COLUMNS)] as readonly ColumnName[];
export const ARG_COLUMN_NAMES = Object.keys(ARG_COLUMNS) as readonly ArgColumnName[];

/** A batch as the formatter and the encoder read it: the arrays, how many events, and the string args. */
export interface EventColumns extends Readonly<ColumnArrays> {
  readonly count: number;
  /** String values (TAG_STR, TAG_RAW), dense: such an arg's argNum is its index here. */
  readonly argObj: readonly string[];
}

/** New, zeroed columns for `events` events and `args` args. */
export function allocColumns(events: number, args: number): ColumnArrays {
  const c = {} as Record<ColumnName, unknown>;
  for (const [name, make] of Object.entries(EVENT_COLUMNS)) c[name as ColumnName] = make(events);
  for (const [name, make] of Object.entries(ARG_COLUMNS)) c[name as ColumnName] = make(args);
  return c as ColumnArrays;
}

/**
 * Copies the column references of `from` into `to`, always in the same order, so every object
 * that holds columns keeps one shape (the encoder's hot code then sees one).
 */
export function assignColumns<T extends ColumnArrays>(to: T, from: Readonly<ColumnArrays>): T {
  const t = to as unknown as Record<ColumnName, unknown>;
  for (const name of COLUMN_NAMES) t[name] = from[name];
  return to;
}

/** Just the arrays of a batch: posting the buffer object itself would clone all its fields. */
export function pickColumns(from: Readonly<ColumnArrays>): ColumnArrays {
  return assignColumns({} as ColumnArrays, from);
}

/** The ArrayBuffers behind the columns: the transfer list of a handover. */
export function columnBuffers(c: Readonly<ColumnArrays>): ArrayBuffer[] {
  return COLUMN_NAMES.map((name) => c[name].buffer as ArrayBuffer);
}

/** What an arg's argNum holds, by its argTag. */
export const TAG_NUM = 0;
export const TAG_STR = 1; // needs JSON escaping
export const TAG_RAW = 2; // already JSON text (hashes, serialised objects, bigints, replacements)
export const TAG_TRUE = 3;
export const TAG_FALSE = 4;
export const TAG_NULL = 5;
export const TAG_ISTR = 6; // an interned string: argNum holds its index in Interner.strFrag
