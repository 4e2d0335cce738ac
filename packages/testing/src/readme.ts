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
