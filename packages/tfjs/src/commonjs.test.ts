// The CommonJS build (dist/index.cjs, what `require('@dftracer/tfjs')` loads) must find tfjs as the
// ESM build does: it once resolved packages from `import.meta.url`, which that build left undefined.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTrace, tempDir, traceFiles } from '@dftracer/testing';

const TFJS_CJS = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));
const INTERNAL_CJS = fileURLToPath(new URL('../dist/internal.cjs', import.meta.url));
const CORE_CJS = fileURLToPath(new URL('../../core/dist/index.cjs', import.meta.url));

describe('require("@dftracer/tfjs")', () => {
  it('loads tfjs with loadTf, records it, and resolves tfjs-core for the integrations', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'app.cjs'),
      `const { initializeLog, finalize } = require(${JSON.stringify(CORE_CJS)});
const { loadTf, currentTf } = require(${JSON.stringify(TFJS_CJS)});
const { resolveTf } = require(${JSON.stringify(INTERNAL_CJS)});
initializeLog({ logFile: 'trace' });
loadTf({ prefer: ['cpu'] }).then((loaded) => {
  const sum = loaded.tf.tidy(() => loaded.tf.range(0, 8).sum().dataSync()[0]);
  const engine = typeof resolveTf(undefined, 'app').engine;
  finalize();
  console.log(JSON.stringify({ backend: loaded.backend, sum, handed: currentTf() === loaded.tf, engine }));
});
`,
    );
    const p = spawnSync(process.execPath, ['app.cjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, DFTRACER_ENABLE: '1' } });
    expect(p.stderr).not.toMatch(/error|warn|filename/i);
    expect(p.status).toBe(0);
    expect(JSON.parse(p.stdout)).toEqual({ backend: 'cpu', sum: 28, handed: true, engine: 'function' });
    const files = traceFiles(dir);
    expect(files).toHaveLength(1);
    const tfjs = readTrace(files[0]!).events.filter((e) => e.name === 'CM' && e.args?.name === 'tfjs');
    expect(tfjs.map((e) => JSON.parse(String(e.args?.value)).backend)).toEqual(['cpu']);
  });
});
