// node bench/merge.mjs: merge against validate on the same traces, each run in a fresh process,
// three rounds interleaved (the fastest counts), with CPU seconds (all threads) and peak RSS.
// Traces: the synthetic 1 M-event trace of `pnpm bench` (same cache), a 25 k-event trace in one
// gzip member. Merges: the 1 M trace alone to .pfw.gz (its members copied) and to .pfw, and the
// 25 k + 1 M traces to .pfw.gz (the 1 M one rewritten: ids shifted, pid moved, recompressed).
// Both through the built CLI (pnpm build). Options: --events N (default 1000000), --rounds N (default 3).
import { spawnSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CACHE, syntheticWriter } from './synthetic.mjs';

const here = dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--child') {
  // one measured run of the built CLI, as a user runs it (start-up included, both commands alike);
  // prints {seconds, cpuSeconds, maxRssMiB} as the last line
  const [what, out, ...files] = process.argv.slice(3);
  process.argv = [process.argv[0], join(here, '..', 'dist', 'cli.js'), what, ...(what === 'validate' ? ['-q', ...files] : [...files, '-o', out, '--force'])];
  process.on('exit', (code) => {
    const ru = process.resourceUsage();
    if (code === 0) process.stdout.write(`\n${JSON.stringify({ seconds: performance.now() / 1000, cpuSeconds: (ru.userCPUTime + ru.systemCPUTime) / 1e6, maxRssMiB: ru.maxRSS / 1024 })}\n`);
  });
  await import('../dist/cli.js');
} else {
  const { values } = parseArgs({ options: { events: { type: 'string' }, rounds: { type: 'string' } } });
  const n = Number(values.events ?? 1_000_000);
  const rounds = Number(values.rounds ?? 3);
  const cache = CACHE;
  const writeSyntheticTrace = await syntheticWriter();
  const trace = (name, opts) => {
    const path = join(cache, name);
    if (!existsSync(path)) {
      writeSyntheticTrace({ path: `${path}.part.pfw.gz`, seed: 42, ...opts });
      renameSync(`${path}.part.pfw.gz`, path);
    }
    return path;
  };
  const big = trace(`synthetic-${n}.pfw.gz`, { events: n }); // the same file as `pnpm bench`
  const oneMember = trace('synthetic-25000-one-member.pfw.gz', { events: 25_000, memberBytes: 1 << 30 });
  const out = join(cache, 'merged');

  const cases = [
    ['validate 1 M', 'validate', '', [big]],
    ['merge 1 M → .pfw.gz', 'merge', `${out}.pfw.gz`, [big]],
    ['merge 1 M → .pfw', 'merge', `${out}.pfw`, [big]],
    ['validate 25 k + 1 M', 'validate', '', [oneMember, big]],
    ['merge 25 k + 1 M → .pfw.gz', 'merge', `${out}.pfw.gz`, [oneMember, big]],
    ['validate 25 k in one member', 'validate', '', [oneMember]],
    ['merge 25 k in one member → .pfw.gz', 'merge', `${out}.pfw.gz`, [oneMember]],
  ];
  const best = new Map();
  for (let r = 0; r < rounds; r++) {
    for (const [label, what, o, files] of cases) {
      if (o) rmSync(o, { force: true });
      const p = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', what, o || '-', ...files], { encoding: 'utf8' });
      if (p.status !== 0) throw new Error(`${label} failed: ${p.stderr}`);
      const m = JSON.parse(p.stdout.trim().split('\n').pop());
      const prev = best.get(label);
      if (!prev || m.seconds < prev.seconds) best.set(label, m);
    }
  }
  rmSync(`${out}.pfw.gz`, { force: true });
  rmSync(`${out}.pfw`, { force: true });

  console.log(`\n${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} (availableParallelism ${availableParallelism()}), Node ${process.version}; fastest of ${rounds}\n`);
  console.log('| run | wall s | × validate | CPU s | × validate | peak RSS |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const ref = { '1 M': 'validate 1 M', '25 k + 1 M': 'validate 25 k + 1 M', '25 k in one member': 'validate 25 k in one member' };
  for (const [label] of cases) {
    const m = best.get(label);
    const v = best.get(Object.entries(ref).find(([k]) => label.includes(k) && (label.includes('+') === k.includes('+')) && (label.includes('member') === k.includes('member')))?.[1]);
    const x = (a, b) => (label.startsWith('validate') ? '' : `${(a / b).toFixed(2)}×`);
    console.log(`| ${label} | ${m.seconds.toFixed(2)} | ${x(m.seconds, v.seconds)} | ${m.cpuSeconds.toFixed(2)} | ${x(m.cpuSeconds, v.cpuSeconds)} | ${Math.round(m.maxRssMiB)} MiB |`);
  }
}
