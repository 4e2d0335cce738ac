import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withOptionsTable } from './readme-table.js';
import { SETTINGS, SETTING_NAMES } from './settings.js';

const README = new URL('../../README.md', import.meta.url);

describe('the README options table', () => {
  it('is the declaration (DFTRACER_UPDATE_README=1 npx vitest run src/config/readme-table rewrites it)', () => {
    const readme = readFileSync(README, 'utf8');
    const want = withOptionsTable(readme);
    if (process.env.DFTRACER_UPDATE_README === '1' && want !== readme) writeFileSync(README, want);
    else expect(readme).toBe(want);
  });

  it('names every option and variable once', () => {
    const readme = readFileSync(README, 'utf8');
    for (const name of SETTING_NAMES) expect(readme).toContain(`| \`${name}\` | \`${SETTINGS[name].variable}\` |`);
    expect(new Set(SETTING_NAMES.map((n) => SETTINGS[n].variable)).size).toBe(SETTING_NAMES.length);
  });
});
