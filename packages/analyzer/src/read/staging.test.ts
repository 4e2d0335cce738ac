import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { Duck, loadEvents, loadTraces } from './duck.js';
import { tempDir } from '../test-util/fixtures.test-util.js';
import { ReadShortError, stageTraces } from './staging.js';
import { writeSyntheticTrace } from '../test-util/synthetic.test-util.js';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

const rec = (id: number) => `{"id":${id},"name":"n${id}","cat":"c","pid":1,"tid":1,"ts":${1000 + id},"dur":1,"ph":"X"}`;

describe('stageTraces', () => {
  it('keeps every record, one a line, and drops only brackets and blank lines', async () => {
    // our layout, a run appended after a closed one ("]" then "["), a "]" sharing a line with the
    // next run's first record (DFTracer 2024), indented records (2023), blank lines, a last
    // "]" without newline, a broken line (kept: DuckDB's all-null row counts it)
    const text = ['[', rec(1), rec(2), ']', '[', rec(3), `]${rec(4)}`, `   ${rec(5)}`, '', `\t${rec(6)}\r`, 'not json', rec(7), ']'].join('\n');
    const gz = join(dir, 'shapes.pfw.gz');
    // one member per line, then one for the rest: member boundaries inside and between lines
    const bytes = Buffer.from(text);
    writeFileSync(gz, Buffer.concat([gzipSync(bytes.subarray(0, 1)), gzipSync(bytes.subarray(1, 40)), gzipSync(bytes.subarray(40))]));
    const plain = join(dir, 'shapes.pfw');
    writeFileSync(plain, text);
    const [a, b] = await stageTraces([gz, plain], dir);
    // the CR stays: JSON whitespace, which DuckDB reads
    const expected = [rec(1), rec(2), rec(3), rec(4), rec(5), `${rec(6)}\r`, 'not json', rec(7), ''].join('\n');
    for (const t of [a!, b!]) {
      expect(readFileSync(t.path, 'utf8')).toBe(expected);
      expect(t.records).toBe(8);
      expect(t.lines).toBe(13);
    }
    expect(a!.index).toBe(0);
    expect(b!.index).toBe(1);
  });

  it('makes DFTracer 2.2 integer phases letters, wherever chunks and gzip members cut the lines', async () => {
    // complete, counter, aggregated, metadata (2.2 field orders), a line of ours, a "ph" inside args,
    // an unknown phase 7 (left as it is), repeated past the 256 KiB staging chunk
    const one = (i: number) => [
      `{"id":${i},"name":"read","cat":"POSIX","type":3,"pid":1,"tid":1,"ts":${i},"dur":2,"ph":1,"args":{"hhash":"0123456789abcdef","ph":2}}`,
      `{"name":"memory","cat":"sys","type":7,"ts":${i},"ph":2,"pid":1,"tid":1,"args":{"rss":5}}`,
      `{"name":"read","cat":"POSIX","type":3,"ts":${i},"ph":3,"pid":1,"tid":1}`,
      `{"name":"FH","cat":"dftracer","type":1,"pid":1,"tid":1,"ph":4,"args":{"name":"/a","value":"x"}}`,
      rec(i),
      `{"name":"odd","cat":"c","type":1,"pid":1,"tid":1,"ph":7}`,
    ];
    const want = (i: number) => one(i).map((l) => l.replace(/"ph":([1-4])([,}])/, (_, d: string, c: string) => `"ph":"${'XCCM'[Number(d) - 1]}"${c}`));
    const n = 3000;
    const lines = Array.from({ length: n }, (_, i) => one(i)).flat();
    const bytes = Buffer.from(lines.join('\n') + '\n');
    const gz = join(dir, 'v22.pfw.gz');
    writeFileSync(gz, Buffer.concat([gzipSync(bytes.subarray(0, 77)), gzipSync(bytes.subarray(77, 300_001)), gzipSync(bytes.subarray(300_001))]));
    const [t] = await stageTraces([gz], dir, 50);
    expect(t!.records).toBe(lines.length);
    const staged = readFileSync(t!.path, 'utf8').split('\n');
    expect(staged.length - 1).toBe(lines.length);
    for (let i = 0; i < n; i += 997) expect(staged.slice(i * 6, i * 6 + 6)).toEqual(want(i));
    expect(staged.filter((l) => /"ph":[1-4][,}]/.test(l.slice(0, l.indexOf('"args"') < 0 ? undefined : l.indexOf('"args"'))))).toEqual([]);
  });

  it('says where a truncated gzip stops', async () => {
    const gz = join(dir, 'trunc.pfw.gz');
    const first = gzipSync(`[\n${rec(1)}\n`);
    // the second member ends after its 10-byte header
    writeFileSync(gz, Buffer.concat([first, gzipSync(`${rec(2)}\n${rec(3)}\n`).subarray(0, 12)]));
    const [t] = await stageTraces([gz], dir, 5);
    expect(t!.path).toBe(join(dir, '5.ndjson'));
    expect(t!.records).toBe(1);
    expect(t!.gzipError).toMatch(/truncated gzip/);
  });
});

describe('the load checks every record', () => {
  it('fails naming the file and the line when a stage returns fewer records than the file holds', async () => {
    const file = join(dir, 'short.pfw.gz');
    writeSyntheticTrace({ path: file, events: 500, seed: 3, memberBytes: 2048 });
    for (const load of [loadTraces, loadEvents]) {
      const duck = await Duck.open({ threads: 1 });
      try {
        const [t] = await duck.stage([file]);
        // a reader that stops early: the staged text loses its tail after record 100
        const lines = readFileSync(t!.path, 'utf8').split('\n');
        writeFileSync(t!.path, `${lines.slice(0, 100).join('\n')}\n`);
        const err = await load(duck, [file]).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ReadShortError);
        // line 1 is "[", so record 101 is line 102
        expect((err as Error).message).toBe(
          `${file}: DuckDB's read of the trace returned 100 of its ${t!.records} records; reading stopped at or before line 102. Nothing was analysed: a partial answer would be wrong (please report this with the file).`,
        );
      } finally {
        duck.close();
      }
    }
  });
});
