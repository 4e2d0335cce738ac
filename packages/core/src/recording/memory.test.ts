import { spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { tempDir, traceFiles } from '@dftracer/testing';
import { cleanEnv, writeModule } from '../test-util/node-process.test-util.js';

/**
 * Memory is bounded by the write buffer: however many events a program records, the tracer holds
 * one buffer being filled plus a bounded number handed to the writer thread. A long run must show
 * no growth: the JS heap after a full GC is flat between 10 % and 100 % of the run, and RSS stays
 * under a fixed ceiling above the untraced baseline.
 *
 * CI runs 2 M events (about 5 s); DFTRACER_MEMORY_EVENTS=10000000 runs the 10 M of the issue.
 */

const EVENTS = Number(process.env.DFTRACER_MEMORY_EVENTS ?? 2_000_000);
const MiB = 2 ** 20;

interface Report {
  base: number;
  atWarm: number;
  rssMin: number;
  rssMax: number;
  heapWarm: number;
  heapEnd: number;
  seconds: number;
}

/** Counts the lines of a .pfw.gz without holding it in memory; returns the count and the last line. */
async function scan(file: string): Promise<{ lines: number; events: number; meta: number; last: string }> {
  let lines = 0;
  let events = 0;
  let meta = 0;
  let tail = '';
  let last = '';
  for await (const chunk of createReadStream(file).pipe(createGunzip())) {
    const s = tail + (chunk as Buffer).toString('latin1');
    let start = 0;
    for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', start)) {
      lines++;
      const line = s.slice(start, nl);
      if (line.startsWith('{"id":')) {
        if (line.includes(',"ph":"M"') || line.includes(',"ph":"C"')) meta++; // metadata and counter samples
        else events++;
        last = line;
      }
      start = nl + 1;
    }
    tail = s.slice(start);
  }
  expect(tail).toBe('');
  return { lines, events, meta, last };
}

describe('bounded memory', () => {
  it(`${EVENTS.toLocaleString('en')} events with compression: no heap growth, RSS under a fixed ceiling, every event written`, async () => {
    const dir = tempDir('dft-mem-');
    // The young generation pinned to Node 20's default: Node 22+ grows it further, which would
    // read as RSS growth after warm-up without being the tracer's.
    const r = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=16', writeModule(dir, `
      import { initializeLog, dftFn, finalize } from CORE;
      const N = ${EVENTS};
      const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
      const rss = () => process.memoryUsage.rss();
      heap();
      const base = rss();
      initializeLog({ logFile: ${JSON.stringify(join(dir, 'mem'))}, dataDir: ${JSON.stringify(join(dir, 'no-io'))} });
      const f = dftFn('mem').log(function work(step) { return step + 1; });
      let rssMin = Infinity, rssMax = 0, atWarm = 0, heapWarm = 0, sum = 0;
      const t0 = performance.now();
      for (let i = 0; i < N; i++) {
        sum += f(i);
        if (i === N / 4) { heapWarm = heap(); atWarm = rss(); }
        if (i > N / 4 && (i & 0x7fff) === 0) { const m = rss(); if (m < rssMin) rssMin = m; if (m > rssMax) rssMax = m; }
      }
      const heapEnd = heap();
      const seconds = (performance.now() - t0) / 1000;
      finalize();
      console.log(JSON.stringify({ base, atWarm, rssMin, rssMax, heapWarm, heapEnd, seconds }));
    `)], { cwd: dir, encoding: 'utf8', env: { ...cleanEnv(), DFTRACER_ENABLE: '1' }, timeout: 300_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const m = JSON.parse(r.stdout) as Report;
    const mb = (x: number) => `${(x / MiB).toFixed(1)} MiB`;
    console.log(
      `[memory] ${EVENTS} events in ${m.seconds.toFixed(1)} s (default 1 MiB buffer): RSS before init ${mb(m.base)}, ` +
        `from 25 % to the end min ${mb(m.rssMin)} max ${mb(m.rssMax)} (max − baseline ${mb(m.rssMax - m.base)}); ` +
        `heap after GC at 25 % ${mb(m.heapWarm)}, at the end ${mb(m.heapEnd)}`,
    );
    // A leak of even 2 bytes per event would show here.
    expect(m.heapEnd - m.heapWarm).toBeLessThan(Math.max(4 * MiB, EVENTS * 2 * 0.9));
    // RSS: steady after warm-up, and a fixed ceiling above the untraced process.
    expect(m.rssMax - m.atWarm).toBeLessThan(48 * MiB);
    expect(m.rssMax - m.base).toBeLessThan(160 * MiB);

    const { events, meta, last } = await scan(traceFiles(dir)[0]!);
    expect(events).toBe(EVENTS + 2); // start, the events, end
    const end = JSON.parse(last) as { name: string; args: { num_events: number } };
    expect(end.name).toBe('end');
    expect(end.args.num_events).toBe(EVENTS + 1 + meta); // every record before it, metadata included
  });
});
