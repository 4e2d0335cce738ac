// DFTRACER_ENABLE=0 (pydftracer's "disabled" case): the tracers hand back the program's own
// functions, regions and iterables pass through, results are unchanged and no file is written.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '@dftracer/testing';

const AI_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const CORE_DIST = fileURLToPath(new URL('../../core/dist/index.js', import.meta.url));

describe('with tracing off', () => {
  it('returns functions and classes themselves and writes no trace', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'app.mjs'),
      `import { initializeLog, finalize } from ${JSON.stringify(CORE_DIST)};
import { ai } from ${JSON.stringify(AI_DIST)};
const log = initializeLog({ logFile: 'trace' });
const f = (x) => x + 1;
class C { m() { return 2; } }
const same = [ai.data.item(f) === f, ai.compute.forward({ epoch: 1 })(f) === f, ai.checkpoint.init(C) === C,
  ai.data.item(C.prototype.m, { kind: 'method', name: 'm' }) === C.prototype.m];
const r = ai.pipeline.train.run(() => 3);
ai.compute.step.start().stop();
const it = [...ai.dataloader.fetch.iter([4, 5])];
ai.update({ epoch: 1 });
finalize();
console.log(JSON.stringify({ same, r, it, enabled: log.enabled }));
`,
    );
    const p = spawnSync(process.execPath, ['app.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '0' } });
    expect(p.stderr).toBe('');
    expect(JSON.parse(p.stdout)).toEqual({ same: [true, true, true, true], r: 3, it: [4, 5], enabled: false });
    expect(readdirSync(dir).filter((f) => f.includes('.pfw'))).toEqual([]);
  });
});
