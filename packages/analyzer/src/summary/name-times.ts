/**
 * Self and busy time per category and per name, beside the plain sums (which add up overlapping
 * and nested spans, and so exceed the wall time):
 * - busy: the length of the union of the spans' intervals, per process (then summed over
 *   processes): the wall time during which at least one of them ran;
 * - self: the same union over their *self time* (each span while none of its children runs), so
 *   a span that waits on nested calls is not also charged for them.
 * Both are at most the process' wall time for every row. Events on GPU device tracks are device
 * time, not host time: they are left out here (see `device.ts`). The figures come from the
 * summary's one pass over the events (`timeline/`).
 */
import type { Timeline } from './timeline/timeline.js';
import { nameKey } from './name-rank.js';

export interface NameTimes {
  self_us: number;
  busy_us: number;
}

export const HOST_EVENTS = `ph = 'X' AND NOT coalesce(dev, false) AND cat <> 'dftracer'`;

/** Self and busy µs by `cat` and by `cat\u0000name` (a missing cat reads `null`). */
export function nameTimes(tl: Timeline): { byCat: Map<string, NameTimes>; byName: Map<string, NameTimes> } {
  const byCat = new Map<string, NameTimes>();
  const byName = new Map<string, NameTimes>();
  tl.catNames.forEach((cat, c) => byCat.set(String(cat), { busy_us: tl.busyByCat[c]!, self_us: tl.selfByCat[c]! }));
  // (a null name is the key of a category's names not kept: counted in its category only)
  tl.keyName.forEach((name, k) => name !== null && byName.set(nameKey(tl.keyCat[k], name), { busy_us: tl.busyByKey[k]!, self_us: tl.selfByKey[k]! }));
  return { byCat, byName };
}
