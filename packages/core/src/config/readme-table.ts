import { SETTINGS, SETTING_NAMES } from './settings.js';

/** The README's options table, from the declaration (checked by readme-table.test.ts). */
export function optionsTable(): string {
  const rows = SETTING_NAMES.map((name) => {
    const s = SETTINGS[name];
    return `| \`${name}\` | \`${s.variable}\` | ${s.meaning} | ${s.shownDefault} |`;
  });
  return ['| option | variable | meaning | default |', '|---|---|---|---|', ...rows].join('\n');
}

export const TABLE_START = '<!-- options table: generated from src/config/settings.ts -->';
export const TABLE_END = '<!-- end of options table -->';

/** `readme` with the text between the markers replaced by the table; throws if the markers are missing. */
export function withOptionsTable(readme: string): string {
  const i = readme.indexOf(TABLE_START);
  const j = readme.indexOf(TABLE_END);
  if (i < 0 || j < i) throw new Error(`the README lacks the markers ${TABLE_START} … ${TABLE_END}`);
  return `${readme.slice(0, i + TABLE_START.length)}\n${optionsTable()}\n${readme.slice(j)}`;
}
