import { activeTracer } from './core-state.js';
import type { CounterValues } from '../counters/counter-line.js';

export { addCounterSampler } from '../counters/samplers.js';
export type { CounterSampler, EmitCounter } from '../counters/samplers.js';
export type { CounterValues } from '../counters/counter-line.js';

/**
 * Writes one counter record (`"ph":"C"`) now, on this thread's track: `values` are its series,
 * each number written as JavaScript prints it (it reads back as the same number). NaN and
 * ±Infinity are written `null` with a `non_finite` arg naming them; a value that is not a number,
 * or whose getter throws, is left out; each with one warning. Perfetto draws one track per `name`
 * and series. Does nothing while tracing is off. For figures wanted every interval, `addCounterSampler` instead.
 */
export function counter(name: string, cat: string, values: CounterValues): void {
  if (typeof name !== 'string' || name === '' || typeof cat !== 'string' || cat === '') throw new TypeError(`counter: name and cat must be non-empty strings; got ${typeof name} ${JSON.stringify(name)}, ${typeof cat} ${JSON.stringify(cat)}`);
  if (values === null || typeof values !== 'object') throw new TypeError(`counter: values must be an object of numbers; got ${values === null ? 'null' : typeof values}`);
  activeTracer()?.counter(name, cat, values);
}
