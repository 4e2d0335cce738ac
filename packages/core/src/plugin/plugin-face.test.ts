// The plugin face integrations use instead of their own copies: warn-once, descriptor check, clock.
import { performance } from 'node:perf_hooks';
import { tempDir } from '@dftracer/testing';
import { describe, expect, it } from 'vitest';
import { isDescriptor, nowUs, perfMsToUs, warnOnce } from '../index.js';
import { runModule } from '../test-util/node-process.test-util.js';

describe('warnOnce', () => {
  it('says each key once through the tracer at WARN, and on stderr once per key with tracing off', () => {
    const r = runModule(
      tempDir(),
      `import { initializeLog, finalize, warnOnce } from CORE;
       warnOnce('k', 'off one'); warnOnce('k', 'off two'); warnOnce('j', 'off three');
       initializeLog({ enable: true, logFile: 'trace', compression: false, disableIo: true });
       warnOnce('t', 'on one'); warnOnce('t', 'on two');
       finalize();`,
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => / (off|on) /.test(l));
    expect(lines.map((l) => l.replace(/^.*WARN\W*/, ''))).toEqual(['off one', 'off three', 'on one']);
  });

  it('rejects an empty key by name', () => {
    expect(() => warnOnce('', 'x')).toThrow(/warnOnce: key must be a non-empty string/);
  });
});

describe('isDescriptor', () => {
  it('tells a property descriptor from options objects', () => {
    expect(isDescriptor(Object.getOwnPropertyDescriptor({ f() {} }, 'f'))).toBe(true);
    expect(isDescriptor({ get: () => 1, enumerable: false })).toBe(true);
    expect(isDescriptor({ value: 1 })).toBe(false);
    expect(isDescriptor({ epoch: 1 })).toBe(false);
    expect(isDescriptor(undefined)).toBe(false);
  });
});

describe('perfMsToUs', () => {
  it('puts a performance.now() reading on the nowUs clock, in integer µs', () => {
    const before = nowUs();
    const t = perfMsToUs(performance.now());
    const after = nowUs();
    expect(Number.isInteger(t)).toBe(true);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  });
});
