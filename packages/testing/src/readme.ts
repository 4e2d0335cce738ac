import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/**
 * What in a user README points where its reader cannot follow: a relative link that leaves the
 * repository (`root`) or names no file in it, and any mention of a path above the repository
 * (`../shared/…`, which a clone does not have). One line per problem; none for a good README.
 */
export function readmeProblems(file: string, root: string): string[] {
  const text = readFileSync(file, 'utf8');
  const problems: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0]!));
    if (relative(root, path).startsWith('..')) problems.push(`link ${target} leaves the repository`);
    else if (!existsSync(path)) problems.push(`link ${target} names no file`);
  }
  for (const m of text.matchAll(/(?:\.\.\/)+shared\/[^\s`)]*/g)) problems.push(`mentions ${m[0]}, outside the repository`);
  return problems;
}

/**
 * Where a package README departs from the one outline every package README follows: `## Install`,
 * `## Example`, then its API (`## API`, or `## Commands` for a CLI), …, `## Limits`, and last
 * `## Performance`, pointing to `bench/README.md`, which holds the tables and names the command
 * that prints them (`--filter <name> bench`). One line per problem.
 */
export function readmeOutlineProblems(file: string, name: string): string[] {
  const text = readFileSync(file, 'utf8');
  const headings = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
  const problems: string[] = [];
  if (headings[0] !== 'Install') problems.push(`the first section is ${JSON.stringify(headings[0])}, not Install`);
  if (headings[1] !== 'Example') problems.push(`the second section is ${JSON.stringify(headings[1])}, not Example`);
  const api = headings.findIndex((h) => h === 'API' || h === 'Commands');
  const limits = headings.indexOf('Limits');
  if (api < 0) problems.push('no API (or Commands) section');
  if (limits < 0) problems.push('no Limits section');
  else if (api > limits) problems.push('Limits comes before the API');
  if (headings.at(-1) !== 'Performance') problems.push(`the last section is ${JSON.stringify(headings.at(-1))}, not Performance`);
  const perf = text.slice(text.lastIndexOf('\n## Performance'));
  if (!perf.includes('](bench/README.md)')) problems.push('Performance does not point to bench/README.md');
  const bench = resolve(dirname(file), 'bench', 'README.md');
  if (!existsSync(bench)) problems.push('no bench/README.md');
  else if (!readFileSync(bench, 'utf8').includes(`--filter ${name} bench`)) problems.push(`bench/README.md does not name the command that prints it (--filter ${name} bench)`);
  return problems;
}

/**
 * Every README problem of the package in `packageDir` (published as `name`): links and paths of its
 * README and bench/README that leave the repository, and where its README departs from the outline.
 */
export function packageReadmeProblems(packageDir: string, name: string): string[] {
  const root = resolve(packageDir, '..', '..');
  const readme = resolve(packageDir, 'README.md');
  return [...readmeProblems(readme, root), ...readmeProblems(resolve(packageDir, 'bench', 'README.md'), root), ...readmeOutlineProblems(readme, name)];
}
