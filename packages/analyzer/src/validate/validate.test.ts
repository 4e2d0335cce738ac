import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, truncateTail, writeSmallTrace, type Variant } from '../test-util/fixtures.test-util.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';
import { TraceWriter } from '../test-util/trace-writer.test-util.js';
import { validateFiles, type FileValidation } from './validate.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

async function check(path: string): Promise<FileValidation> {
  const r = await validateFiles([path], { threads: 0 });
  return r.files[0]!;
}

function kinds(v: FileValidation): string[] {
  return v.problems.map((g) => g.kind).sort();
}

describe('validate: clean traces', () => {
  for (const [name, file] of [
    ['plain', 'clean.pfw'],
    ['multi-member gzip', 'clean.pfw.gz'],
  ] as const) {
    it(`accepts a ${name} trace`, async () => {
      const t = writeSmallTrace(join(dir, file));
      const v = await check(t.path);
      expect(v.problems).toEqual([]);
      expect(v.warnings).toEqual([]);
      expect(v.finished).toBe(true);
      expect(v.events).toBe(11);
      expect(v.tracks).toBe(2);
    });
  }

  it('accepts a trace written without metadata args (DFTRACER_INC_METADATA=0)', async () => {
    const t = writeSmallTrace(join(dir, 'nometa.pfw.gz'), 'no-metadata');
    const v = await check(t.path);
    expect(v.problems).toEqual([]);
  });

  it('accepts a synthetic trace with nesting, lanes and many gzip members', async () => {
    const path = join(dir, 'synthetic.pfw.gz');
    const r = writeSyntheticTrace({ path, events: 20_000, memberBytes: 64 * 1024 });
    const v = await check(path);
    expect(v.problems).toEqual([]);
    expect(v.events).toBe(r.completeEvents);
    expect(v.lines).toBe(r.lines);
    expect(v.tracks).toBe(3);
  });

  it('reports an unfinished trace (no end event) as a warning, not a failure', async () => {
    const t = writeSmallTrace(join(dir, 'unfinished.pfw.gz'), 'unfinished');
    const v = await check(t.path);
    expect(v.problems).toEqual([]);
    expect(v.finished).toBe(false);
    expect(v.warnings[0]).toMatch(/unfinished: no "end" event for pid 4242/);
  });

  it('accepts unusual but valid JSON (escapes, spaces) through the slow path', async () => {
    const path = join(dir, 'escapes.pfw');
    const w = new TraceWriter({ path });
    w.header();
    w.start(100);
    w.complete('read "quoted"\n\u0001', 'POSIX', 101, 2, { args: { fhash: w.fileHash('/data/ü "x".bin'), ret: 1 } });
    w.raw(`{"id": 99, "name":"spaced","cat":"x","pid":${w.pid},"tid":${w.tid},"ts":104,"dur":1,"ph":"X"}`);
    w.completeEvents++;
    w.records++;
    w.end(110);
    w.close();
    const v = await check(path);
    expect(v.problems).toEqual([]);
    expect(v.events).toBe(4);
  });
});

describe('validate: broken copies fail with the right reason and line', () => {
  const cases: Array<[Variant, string, RegExp]> = [
    ['bad-json', 'json', /not valid JSON/],
    ['overlap', 'overlap', /partially overlaps event \d+ \[\d+, \d+\] \(line \d+\) on pid 4242 tid 67873/],
    ['unknown-fhash', 'hash', /hash 0123456789abcdef is not defined by any FH metadata line/],
    ['wrong-num-events', 'num-events', /end\.num_events is 21 but 20 records \(10 complete events, 10 metadata\) precede it/],
    ['field-order', 'layout', /fields out of order: expected id, name, cat, pid, tid, ts, dur, ph, args/],
    ['missing-parent', 'parent', /p_idx 5000 names no event/],
    ['outside-parent', 'nesting', /is not within its parent/],
    ['duplicate-id', 'duplicate-id', /id \d+ is used twice/],
  ];
  for (const [variant, kind, message] of cases) {
    it(`${variant} → ${kind}`, async () => {
      const t = writeSmallTrace(join(dir, `${variant}.pfw.gz`), variant);
      const v = await check(t.path);
      expect(kinds(v)).toEqual([kind]);
      const g = v.problems[0]!;
      expect(g.count).toBe(1);
      expect(g.examples[0]!.line).toBe(t.line);
      expect(g.examples[0]!.message).toMatch(message);
    });
  }

  it('truncated gzip → gzip, after the complete lines', async () => {
    const t = writeSmallTrace(join(dir, 'truncated.pfw.gz'));
    truncateTail(t.path, 20);
    const v = await check(t.path);
    expect(kinds(v)).toEqual(['gzip']);
    expect(v.problems[0]!.examples[0]!.message).toMatch(/truncated gzip/);
    expect(v.problems[0]!.examples[0]!.line).toBe(v.lines + 1);
    expect(v.lines).toBeGreaterThan(10);
  });

  it('not a trace at all → not-trace on line 1', async () => {
    const path = join(dir, 'notes.pfw');
    writeFileSync(path, 'hello, this is not a trace\n{"a":1}\n');
    const v = await check(path);
    expect(kinds(v)).toEqual(['not-trace']);
    expect(v.problems[0]!.examples[0]).toEqual({ line: 1, message: 'not a DFTracer trace: line 1 is not "[" (starts with "hello, this is not a trace")' });
    const bin = join(dir, 'binary.pfw.gz');
    writeFileSync(bin, gzipSync(readFileSync(process.execPath).subarray(0, 5000)));
    expect(kinds(await check(bin))).toEqual(['not-trace']);
  });

  it('an unterminated last line is reported as cut short', async () => {
    const t = writeSmallTrace(join(dir, 'cut.pfw'));
    const text = readFileSync(t.path, 'utf8');
    writeFileSync(t.path, text.slice(0, text.length - '\n]\n'.length)); // the end event, cut before its newline
    const v = await check(t.path);
    expect(kinds(v)).toEqual(['layout']);
    expect(v.problems[0]!.examples[0]!.message).toMatch(/no newline/);
  });

  it('reports each kind with a count and caps the examples', async () => {
    const path = join(dir, 'many.pfw');
    const w = new TraceWriter({ path });
    w.header();
    w.start(100);
    for (let i = 0; i < 50; i++) w.raw(`{"id":${1000 + i},"name":`);
    w.end(200);
    w.close();
    const v = await check(path);
    expect(v.problems).toHaveLength(1);
    expect(v.problems[0]!.count).toBe(50);
    expect(v.problems[0]!.examples).toHaveLength(3);
    expect(v.problems[0]!.examples.map((e) => e.line)).toEqual([8, 9, 10]);
  });
});

describe('validate: traces appended in one file', () => {
  const joined = (name: string, parts: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, parts.map((p) => readFileSync(p, 'utf8')).join(''));
    return path;
  };

  it('our layout joined with cat: each run checked on its own, a warning at the second "["', async () => {
    const a = writeSmallTrace(join(dir, 'run-a.pfw'), 'clean', { pid: 500 });
    const b = writeSmallTrace(join(dir, 'run-b.pfw'), 'clean', { pid: 500, t0: a.t0 + 10_000_000 });
    const firstLines = readFileSync(a.path, 'utf8').split('\n').length - 1;
    const v = await check(joined('cat.pfw', [a.path, b.path]));
    expect(v.problems, JSON.stringify(v.problems)).toEqual([]);
    expect(v.runs).toBe(2);
    expect(v.events).toBe(22);
    expect(v.finished).toBe(true);
    expect(v.warnings).toEqual([expect.stringContaining(`traces of several runs appended in one file (a "[" or "]" after an earlier run's records), each run checked on its own (line ${firstLines + 1})`)]);
  });

  it('per run: num_events is checked against its own run, and a killed run is named', async () => {
    const a = writeSmallTrace(join(dir, 'killed.pfw'), 'unfinished', { pid: 501 });
    const b = writeSmallTrace(join(dir, 'wrong.pfw'), 'wrong-num-events', { pid: 501, t0: a.t0 + 10_000_000 });
    const firstLines = readFileSync(a.path, 'utf8').split('\n').length - 1;
    const v = await check(joined('killed-then-wrong.pfw', [a.path, b.path]));
    expect(kinds(v)).toEqual(['num-events']);
    expect(v.problems[0]!.examples[0]!.line).toBe(firstLines + b.line);
    expect(v.finished).toBe(false);
    expect(v.warnings[0]).toMatch(/^unfinished: no "end" event for pid 501 \(run 1 of 2\)/);
  });

  it('in our layout, ids that repeat without a new "[" stay an error', async () => {
    const t = writeSmallTrace(join(dir, 'dup.pfw'), 'duplicate-id');
    const v = await check(t.path);
    expect(kinds(v)).toEqual(['duplicate-id']);
    expect(v.runs).toBe(1);
  });
});
