import { describe, expect, it } from 'vitest';
import { counterLine } from '../counters/counter-line.js';
import { EventBuffer } from '../recording/event-buffer.js';
import { Interner } from '../recording/interner.js';
import { formatContext } from '../test-util/format.test-util.js';
import { EventBytes } from './event-bytes.js';
import { formatEvents } from './format-events.js';

// Values a training program records (a learning rate, an accuracy, a loss near 0, a huge count)
// and doubles whose shortest text is long: each must read back as the very same double.
const VALUES: Record<string, number> = {
  lr: 1e-5,
  acc: 0.98765,
  loss: 0.0004,
  huge: 1e21,
  third: 1 / 3,
  sum: 0.1 + 0.2,
  denormal: 5e-324,
  max: Number.MAX_VALUE,
  neg: -2.5e-7,
  unsafe: 2 ** 53 + 2,
};

function eventArgs(lines: string): Record<string, unknown> {
  return JSON.parse(lines.split('\n')[0]!).args;
}

describe('numbers keep their value on every path that writes them', () => {
  const interner = new Interner(9);
  const ctx = formatContext(interner);
  const buf = new EventBuffer(4);
  buf.push(interner.kind('step', 'train'), 1, 9, 1760934170173819, 5, 1, -1, VALUES, interner);

  it.each([
    ['text formatter', () => formatEvents(buf, ctx)],
    ['byte formatter', () => new EventBytes(ctx).format('', buf).toString()],
  ])('event args: %s', (_, write) => {
    const args = eventArgs(write());
    for (const [k, v] of Object.entries(VALUES)) expect(Object.is(args[k], v), `${k}: ${String(args[k])} ≠ ${v}`).toBe(true);
  });

  it('counter records: shortest round-trip text, as event args', () => {
    const line = counterLine(3, 'train', 'app', 9, 9, 1760934170173819, 'h', VALUES)!;
    const args = JSON.parse(line).args;
    for (const [k, v] of Object.entries(VALUES)) expect(Object.is(args[k], v), `${k}: ${String(args[k])} ≠ ${v}`).toBe(true);
    expect(line).toContain('"lr":0.00001,"acc":0.98765,"loss":0.0004,"huge":1e+21');
  });
});
