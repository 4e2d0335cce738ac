// initializeLog names its mistakes: an unknown option is an error with the closest known name, and
// a second call whose options differ from the running trace's says what it did not get.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '@dftracer/testing';
import { runModule } from '../test-util/node-process.test-util.js';

describe('initializeLog options', () => {
  it('rejects a misspelt option, naming it and the option meant, and writes no trace', () => {
    const dir = tempDir();
    const r = runModule(
      dir,
      `import { initializeLog } from CORE;
try { initializeLog({ logfile: 'trace' }); } catch (e) { console.log(e.constructor.name + ': ' + e.message); }`,
      { DFTRACER_ENABLE: '1' },
    );
    expect(r.stdout).toMatch(/^TypeError: initializeLog: unknown option "logfile" \(did you mean logFile\?\); known options: enable, logFile, dataDir, /);
    expect(readdirSync(dir).filter((f) => f.includes('.pfw'))).toEqual([]);
  });

  it('warns once on stderr when a second call asks for other settings, naming each and the running value', () => {
    const dir = tempDir();
    const r = runModule(
      dir,
      `import { initializeLog, finalize } from CORE;
const a = initializeLog({ logFile: 'first', compressionLevel: 1 });
const b = initializeLog({ logFile: 'second', compressionLevel: 1, dataDir: ['/data'] });
initializeLog({ logFile: 'second', compressionLevel: 1, dataDir: ['/data'] });
initializeLog({ compressionLevel: 1 });
initializeLog();
console.log(JSON.stringify({ same: a.file === b.file }));
finalize();`,
      { DFTRACER_ENABLE: '1' },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ same: true });
    const warnings = r.stderr.split('\n').filter((l) => l.includes('initializeLog'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBe(`dftracer: WARN: initializeLog: tracing already runs; this call's options were ignored: logFile "second" (running: "first"); dataDir {"dataDirs":["/data"],"traceAll":false} (running: {"dataDirs":[],"traceAll":true})`);
    expect(readdirSync(dir).filter((f) => f.includes('.pfw'))).toEqual([expect.stringMatching(/^first-/)]);
  });
});
