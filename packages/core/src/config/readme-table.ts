import { SETTINGS, SETTING_NAMES } from './settings.js';

/**
 * The options table, from the declaration (checked by readme-table.test.ts). `base` prefixes the
 * meanings' in-page links (`#compression`) for a README elsewhere: the root's `packages/core`.
 */
export function optionsTable(base = ''): string {
  const rows = SETTING_NAMES.map((name) => {
    const s = SETTINGS[name];
    return `| \`${name}\` | \`${s.variable}\` | ${s.meaning.replaceAll('](#', `](${base}#`)} | ${s.shownDefault} |`;
  });
  return ['| option | variable | meaning | default |', '|---|---|---|---|', ...rows].join('\n');
}

export const TABLE_START = '<!-- options table: generated from src/config/settings.ts -->';
export const TABLE_START_ELSEWHERE = '<!-- options table: generated from packages/core/src/config/settings.ts -->';
export const TABLE_END = '<!-- end of options table -->';

/** `readme` with the text between the markers replaced by the table; throws if the markers are missing. */
export function withOptionsTable(readme: string, base = ''): string {
  const start = base === '' ? TABLE_START : TABLE_START_ELSEWHERE;
  const i = readme.indexOf(start);
  const j = readme.indexOf(TABLE_END);
  if (i < 0 || j < i) throw new Error(`the README lacks the markers ${start} … ${TABLE_END}`);
  return `${readme.slice(0, i + start.length)}\n${optionsTable(base)}\n${readme.slice(j)}`;
}
