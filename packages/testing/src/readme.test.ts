import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './queries.js';
import { readmeProblems } from './readme.js';

describe('readmeProblems', () => {
  it('passes links into the repository and to the web, and finds the rest', () => {
    const root = tempDir();
    mkdirSync(join(root, 'packages', 'a', 'src'), { recursive: true });
    writeFileSync(join(root, 'packages', 'a', 'src', 'x.ts'), '');
    const file = join(root, 'packages', 'a', 'README.md');
    writeFileSync(
      file,
      '[x](src/x.ts) [root](../../packages/a#api) [web](https://example.org/a) [here](#api)\n' +
        '[gone](src/y.ts) [out](../../../elsewhere/z.md) read `../shared/data/upstream-samples` beside the clone\n',
    );
    expect(readmeProblems(file, root)).toEqual([
      'link src/y.ts names no file',
      'link ../../../elsewhere/z.md leaves the repository',
      'mentions ../shared/data/upstream-samples, outside the repository',
    ]);
  });
});
