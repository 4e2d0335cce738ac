import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles, traceProblems } from '@dftracer/testing';
import { runModule } from '../test-util/node-process.test-util.js';

/**
 * 200 sessions (initializeLog … finalize) in one process, each with function, region, iterable and
 * fs events: every file is complete, and after a warm-up of 100 sessions (JIT, the writer thread, allocator arenas) the process keeps its file
 * descriptors, its handles and (within a small bound) its memory. The child runs with small young
 * generations: two isolates (main and writer) otherwise hold dead buffers until a scavenge, which
 * reads as a slow creep of RSS that a real leak would hide in.
 */
const SESSIONS = 200;
const WARM = 100;
const PROGRAM = `
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { initializeLog, finalize, dftFn } from CORE;
const dir = process.env.LOG_DIR;
mkdirSync(dir + '/data');
writeFileSync(dir + '/data/sample.bin', Buffer.alloc(4096, 7));
const fds = () => readdirSync('/proc/self/fd').length;
const handles = () => process.getActiveResourcesInfo().filter((r) => r !== 'TTYWrap').length;
const snapshot = () => { gc(); gc(); const m = process.memoryUsage(); return { rss: m.rss, heap: m.heapUsed, external: m.external, fds: fds(), handles: handles() }; };
let sink = 0;
let warm = null;
for (let s = 0; s < ${SESSIONS}; s++) {
  initializeLog({ logFile: dir + '/s' + s, dataDir: dir + '/data' });
  const d = dftFn('session');
  const f = d.log(function step(i) { return i * 2; });
  for (let i = 0; i < 1000; i++) sink ^= f(i);
  const r = d.start({ session: s });
  sink ^= readFileSync(dir + '/data/sample.bin').length;
  r.stop();
  for (const v of d.iter([1, 2, 3])) sink ^= v;
  for await (const v of d.iter((async function* () { yield 4; yield 5; })())) sink ^= v;
  finalize();
  if (s === ${WARM} - 1) { await new Promise((r) => setImmediate(r)); warm = snapshot(); }
}
await new Promise((r) => setImmediate(r));
console.log(JSON.stringify({ warm, end: snapshot(), sink: typeof sink }));
`;

describe('many sessions in one process', () => {
  it(`${SESSIONS} initializeLog/finalize sessions: every trace valid, fds, handles and memory flat after warm-up`, () => {
    const dir = tempDir('dft-sessions-');
    const r = runModule(dir, PROGRAM, { DFTRACER_ENABLE: '1', LOG_DIR: dir }, ['--expose-gc', '--max-semi-space-size=1']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { warm, end } = JSON.parse(r.stdout) as Record<'warm' | 'end', { rss: number; heap: number; external: number; fds: number; handles: number }>;
    console.log(`[sessions] after ${WARM}: ${JSON.stringify(warm)}; after ${SESSIONS}: ${JSON.stringify(end)}`);
    expect(end.fds).toBeLessThanOrEqual(warm.fds);
    expect(end.handles).toBeLessThanOrEqual(warm.handles);
    const MiB = 1 << 20;
    expect(end.heap - warm.heap).toBeLessThan(4 * MiB);
    expect(end.external - warm.external).toBeLessThan(4 * MiB);
    // RSS is the loosest measure (allocator arenas, code space; +8 to +40 MiB seen over these 100
    // sessions): the bound catches a leak of half a MiB per session, the lines above any JS one.
    expect(end.rss - warm.rss).toBeLessThan(64 * MiB);

    const files = traceFiles(dir);
    expect(files).toHaveLength(SESSIONS);
    for (const f of files) {
      const t = readTrace(f);
      expect(traceProblems(t), f).toEqual([]);
      expect(t.complete.filter((e) => e.name === 'step')).toHaveLength(1000);
      expect(t.complete.filter((e) => e.name === 'read' && e.cat === 'POSIX').length).toBeGreaterThan(0);
      expect(t.complete.at(-1)!.name).toBe('end');
    }
  });
});
