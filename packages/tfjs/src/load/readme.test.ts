// The README's account of loadTf is the code's: its options, their defaults, the candidates'
// order wherever the README spells it out.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_NAMES } from './candidates.js';
import { checkOptions, KEYS } from './options.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The rows of the table under `heading`: first cell (unquoted) → second cell. */
function table(heading: string): Map<string, string> {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, `the README has no "${heading}"`).toBeGreaterThan(0);
  const rows = new Map<string, string>();
  for (const line of README.slice(start + heading.length + 2).split('\n')) {
    if (line.startsWith('## ')) break;
    const m = line.match(/^\| `(\w+)` \| (.+?) \|/);
    if (m) rows.set(m[1]!, m[2]!);
  }
  return rows;
}

const quoted = (names: readonly string[]) => `\`[${names.map((n) => `'${n}'`).join(', ')}]\``;

describe("the README's loadTf options", () => {
  const rows = table('## Options of `loadTf`');

  it('are exactly the options loadTf accepts', () => {
    expect([...rows.keys()].sort()).toEqual([...KEYS].sort());
  });

  it('give the defaults loadTf uses', () => {
    const defaults = checkOptions(undefined);
    expect(rows.get('prefer')).toBe(quoted(defaults.prefer));
    expect(rows.get('wasmTraining')).toBe(`\`${String(defaults.wasmTraining)}\``);
  });

  it('spell out the default order as the code tries it, wherever they spell it out', () => {
    const word: Record<string, string> = { 'tfjs-node-gpu': 'tfjs-node-gpu', webgpu: 'webgpu', 'tfjs-node': 'tfjs-node', wasm: 'wasm', cpu: 'cpu' };
    const chains = [...README.matchAll(/tfjs-node-gpu[^\n|]*?(?:→[^\n→|]+)+/g)].map((m) => m[0]);
    expect(chains.length).toBeGreaterThan(0);
    for (const chain of chains) {
      const named = chain.split('→').map((part) => {
        const p = part.toLowerCase();
        // the most specific name a step mentions: tfjs-node-gpu before tfjs-node, webgpu before gpu
        return Object.keys(word).find((n) => p.includes(n)) ?? part.trim();
      });
      expect(named, chain).toEqual([...CANDIDATE_NAMES]);
    }
  });
});
