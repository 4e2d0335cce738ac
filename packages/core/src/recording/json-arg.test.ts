import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceProblems } from '@dftracer/testing';
import { instrument } from '../api/instrument.js';
import { finalize, initializeLog } from '../api/lifecycle.js';
import { jsonArg } from './json-arg.js';

describe('jsonArg', () => {
  it('is written exactly as its value, short ones interned, in plain and gzip traces', () => {
    const short = jsonArg([64, 64]);
    const long = jsonArg(Array.from({ length: 40 }, (_, i) => [i, i + 1]));
    const odd = jsonArg({ s: 'quote " and \\ backslash', n: null });
    for (const compression of [false, true]) {
      const file = initializeLog({ enable: true, logFile: join(tempDir(), `json-arg-${compression}`), compression, disableIo: true }).file!;
      let i = 0;
      const values = [short, long, odd];
      const op = instrument('json', 'op', { hooks: { args: () => ({ v: values[i++ % 3]! }) } }).wrap(() => 0);
      for (let k = 0; k < 9; k++) op();
      finalize();
      const t = readTrace(file);
      expect(traceProblems(t)).toEqual([]);
      const got = t.complete.filter((e) => e.cat === 'json').map((e) => e.args!.v);
      expect(got).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => JSON.parse(values[k % 3]!.text)));
    }
    expect(JSON.stringify([short])).toBe('[[64,64]]');
  });
});
