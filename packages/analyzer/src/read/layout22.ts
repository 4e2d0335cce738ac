/**
 * DFTracer 2.2's record layout (its C++ writer, `json_line.cpp`): integer `ph` (1 complete, 2
 * counter, 3 aggregated, 4 metadata), an integer `type` (the layer that wrote it), its own field
 * order, no `[`/`]`. One helper turns such a record into ours, for `validate` (which then checks it
 * as any record) and `merge` (which writes our layout).
 */

/** `ph` integers and our letters; aggregated records are `C` with `args.dft_cnt`, as our writer's. */
export const PH_FROM_INT: Readonly<Record<number, 'X' | 'C' | 'M'>> = { 1: 'X', 2: 'C', 3: 'C', 4: 'M' };

/** DFTracer's layers (`TraceType`, enumeration.h); any other value reads as UNKNOWN. */
export const TRACE_TYPES = ['UNKNOWN', 'DFTRACER', 'C_APP', 'LIBC_IO', 'POSIX', 'STDIO', 'PYTHON', 'PSUTIL', 'IO', 'CPP_APP', 'MPI', 'PAPI', 'OMNISTAT', 'VARIORUM', 'CUDA'] as const;

/** The name of a `type` value: UNKNOWN when past the enum. */
export function traceTypeName(type: number): string {
  return TRACE_TYPES[type] ?? 'UNKNOWN';
}

/** Field order of each record kind in the 2.2 writer (`args` optional). */
const ORDER_22: Readonly<Record<number, readonly string[]>> = {
  1: ['id', 'name', 'cat', 'type', 'pid', 'tid', 'ts', 'dur', 'ph', 'args'],
  2: ['name', 'cat', 'type', 'ts', 'ph', 'pid', 'tid', 'args'],
  3: ['name', 'cat', 'type', 'ts', 'ph', 'pid', 'tid', 'args'],
  4: ['name', 'cat', 'type', 'pid', 'tid', 'ph', 'args'],
};

/** Our field order per letter. */
const ORDER_OURS: Readonly<Record<string, readonly string[]>> = {
  X: ['id', 'name', 'cat', 'pid', 'tid', 'ts', 'dur', 'ph', 'args'],
  C: ['name', 'cat', 'pid', 'tid', 'ts', 'ph', 'args'],
  M: ['name', 'cat', 'pid', 'tid', 'ph', 'args'],
};

/** Whether a parsed record is in the 2.2 layout (an integer `ph`). */
export function isLayout22(o: Record<string, unknown>): boolean {
  return typeof o.ph === 'number';
}

/**
 * A 2.2 record as one of ours (letter `ph`, our field order, `type` moved to `args.type` unless
 * args already has one: entity records use that key), or a reason it is not a valid 2.2 record.
 */
export function fromLayout22(o: Record<string, unknown>): { record: Record<string, unknown> } | { error: string } {
  const ph = o.ph as number;
  const letter = PH_FROM_INT[ph];
  if (letter === undefined) return { error: `unknown "ph" ${ph} (DFTracer 2.2: 1 complete, 2 counter, 3 aggregated, 4 metadata)` };
  if (typeof o.type !== 'number' || !Number.isInteger(o.type) || o.type < 0) return { error: `"type" must be a non-negative integer (found ${JSON.stringify(o.type)})` };
  const keys = Object.keys(o);
  const want = ORDER_22[ph]!.filter((k) => k !== 'args' || 'args' in o);
  if (keys.length !== want.length || keys.some((k, i) => k !== want[i])) {
    const missing = want.filter((k) => !(k in o));
    return { error: missing.length > 0 ? `missing field${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')} (DFTracer 2.2 layout)` : `fields out of order for DFTracer 2.2: expected ${want.join(', ')}; found ${keys.join(', ')}` };
  }
  if (ph === 3) {
    const a = o.args as Record<string, unknown> | undefined;
    if (!a || typeof a.dft_cnt !== 'number' || !Number.isInteger(a.dft_cnt) || a.dft_cnt < 1) return { error: 'an aggregated record (ph 3) needs args.dft_cnt, a positive integer' };
  }
  const record: Record<string, unknown> = {};
  for (const k of ORDER_OURS[letter]!) {
    if (k === 'ph') record.ph = letter;
    else if (k === 'args') {
      if (o.args === undefined) continue;
      const a = o.args && typeof o.args === 'object' && !Array.isArray(o.args) ? (o.args as Record<string, unknown>) : null;
      record.args = a && !('type' in a) ? { ...a, type: o.type } : o.args;
    } else record[k] = o[k];
  }
  return { record };
}

/**
 * DFTracer 2.2's `end` (already made ours): its `num_events` counts the ids taken (folded calls
 * included), so `end.id` is `num_events + 1`; checked here, then left out of the record so that
 * our rule (the records before `end`) does not apply. Returns a problem, or null.
 */
export function checkEnd22(record: Record<string, unknown>): string | null {
  if (record.name !== 'end' || record.cat !== 'dftracer' || record.ph !== 'X') return null;
  const args = record.args as Record<string, unknown> | undefined;
  if (!args || !('num_events' in args)) return null;
  const { num_events: n, ...rest } = args;
  record.args = rest;
  return n === Number(record.id) - 1 ? null : `end.num_events is ${JSON.stringify(n)} but its id is ${String(record.id)} (DFTracer 2.2: num_events + 1)`;
}
