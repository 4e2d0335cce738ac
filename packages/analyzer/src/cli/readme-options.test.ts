// The README's options table is the CLI's: every option of every command is in it under that
// command, nothing else is, and each command's --help names each of its options.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commands } from './commands.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** command → the options the README's "### Options" table gives it (`--name`, `-x`). */
function readmeOptions(): Map<string, Set<string>> {
  const start = README.indexOf('\n### Options\n');
  expect(start).toBeGreaterThan(0);
  const out = new Map<string, Set<string>>(commands.map((c) => [c.name, new Set<string>()]));
  let current: string[] = [];
  for (const line of README.slice(start).split('\n').slice(2)) {
    if (line.startsWith('#')) break;
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (cells.length < 4 || cells[1] === 'command' || cells[1]!.startsWith('---')) continue;
    if (cells[1] !== '') current = cells[1] === 'all' ? commands.map((c) => c.name) : [...cells[1]!.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!);
    for (const m of cells[2]!.matchAll(/(?:^|[\s`(,/])(--?[a-z][a-z-]*)/g)) for (const c of current) out.get(c)?.add(m[1]!);
  }
  return out;
}

/** A command's options as the CLI parses them (`--name`, and `-x` for a short). */
function cliOptions(name: string): Set<string> {
  const cmd = commands.find((c) => c.name === name)!;
  return new Set(Object.entries(cmd.options).flatMap(([long, o]) => [`--${long}`, ...(o.short ? [`-${o.short}`] : [])]));
}

describe("the README's CLI options", () => {
  const readme = readmeOptions();

  for (const cmd of commands) {
    it(`are ${cmd.name}'s options, no more and no fewer`, () => {
      const inReadme = readme.get(cmd.name)!;
      const inCli = cliOptions(cmd.name);
      expect({ onlyInReadme: [...inReadme].filter((o) => !inCli.has(o)), onlyInCli: [...inCli].filter((o) => !inReadme.has(o)) }).toEqual({ onlyInReadme: [], onlyInCli: [] });
    });

    it(`are each named in ${cmd.name} --help`, () => {
      for (const o of cliOptions(cmd.name)) expect(cmd.help, `${cmd.name} --help lacks ${o}`).toMatch(new RegExp(`(^|[\\s,])${o}\\b`, 'm'));
    });
  }

  it('name every command in its commands table', () => {
    for (const cmd of commands) expect(README).toMatch(new RegExp(`^\\| \`${cmd.name}[ \`]`, 'm'));
  });
});
