import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withOptionsTable } from './readme-table.js';
import { SETTINGS, SETTING_NAMES } from './settings.js';

// Every copy of the options table is the declaration: core's README and the repository's.
const READMES: [string, URL, string][] = [
  ['packages/core/README.md', new URL('../../README.md', import.meta.url), ''],
  ['README.md', new URL('../../../../README.md', import.meta.url), 'packages/core'],
];

describe('the options tables', () => {
  for (const [name, url, base] of READMES) {
    it(`${name} holds the declaration (DFTRACER_UPDATE_README=1 npx vitest run src/config/readme-table rewrites it)`, () => {
      const readme = readFileSync(url, 'utf8');
      const want = withOptionsTable(readme, base);
      if (process.env.DFTRACER_UPDATE_README === '1' && want !== readme) writeFileSync(url, want);
      else expect(readme).toBe(want);
    });

    it(`${name} names every option and variable once`, () => {
      const readme = readFileSync(url, 'utf8');
      for (const n of SETTING_NAMES) expect(readme).toContain(`| \`${n}\` | \`${SETTINGS[n].variable}\` |`);
      expect(new Set(SETTING_NAMES.map((n) => SETTINGS[n].variable)).size).toBe(SETTING_NAMES.length);
    });
  }
});

describe("the repository README's map of core's source", () => {
  it('names each folder of packages/core/src once, and no folder that is not there', () => {
    const readme = readFileSync(READMES[1]![1], 'utf8');
    const src = fileURLToPath(new URL('..', import.meta.url));
    const folders = readdirSync(src).filter((f) => statSync(`${src}/${f}`).isDirectory());
    const start = readme.indexOf('Inside `packages/core/src`');
    expect(start).toBeGreaterThan(0);
    const paragraph = readme.slice(start, readme.indexOf('\n\n', start));
    const named = [...paragraph.matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1]);
    expect([...named].sort()).toEqual([...folders].sort());
  });
});
