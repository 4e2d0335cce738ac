import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectValid, ofCat, runExample } from './harness.js';

describe('node --import @dftracer/core/register on an unmodified program', () => {
  it('traces the file I/O under DFTRACER_DATA_DIR, and nothing else', async () => {
    // what `--import @dftracer/core/register` resolves to from apps/examples (the run's cwd is elsewhere)
    const core = dirname(createRequire(import.meta.url).resolve('@dftracer/core/package.json'));
    const register = pathToFileURL(join(core, 'dist', 'register.js')).href;
    const run = await runExample('unmodified', { nodeArgs: ['--import', register], args: ['corpus'], env: { DFTRACER_DATA_DIR: 'corpus' } });
    expect(run.stdout).toContain('6 files, 12000 words');
    expect(run.files).toHaveLength(1);
    await expectValid(run.files);

    const cats = new Set(run.events.map((e) => e.cat));
    expect([...cats].sort()).toEqual(['POSIX', 'dftracer']);
    const posix = ofCat(run.events, 'POSIX');
    const names = new Set(posix.map((e) => e.name));
    for (const n of ['open', 'read', 'write', 'close']) expect(names).toContain(n);

    // every traced file is a corpus file, named by FH metadata
    const fh = new Map(run.metadata.filter((m) => m.name === 'FH').map((m) => [m.args!.value, String(m.args!.name)]));
    const touched = new Set(posix.map((e) => e.args?.fhash).filter((h): h is string => typeof h === 'string'));
    const paths = [...touched].map((h) => fh.get(h));
    expect(paths.every((p) => p !== undefined && p.startsWith(join(run.dir, 'corpus')))).toBe(true);
    expect(paths.filter((p) => p!.endsWith('.txt'))).toHaveLength(6);
    // the 6 files' reads return all their bytes (2000 words of 4–6 letters each, plus spaces)
    const bytesRead = posix.filter((e) => e.name === 'read').reduce((a, e) => a + Number(e.args?.ret ?? 0), 0);
    expect(bytesRead).toBeGreaterThan(6 * 2000 * 5);
  });
});
