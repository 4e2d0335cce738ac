/**
 * Turning command-line operands (files, directories, glob patterns) into trace files.
 * Directories are searched recursively for `*.pfw` and `*.pfw.gz`; globs support `*`, `?`,
 * `[…]` and `**` (quote them so the shell passes them through).
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { UserError } from '../errors.js';

const TRACE_RE = /\.pfw(\.gz)?$/;

/** True for `*.pfw` and `*.pfw.gz` names. */
export function isTraceName(name: string): boolean {
  return TRACE_RE.test(name);
}

function hasGlob(s: string): boolean {
  return /[*?[]/.test(s);
}

function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        // "**/" matches any number of directories
        re += pattern[i + 2] === '/' ? '(?:.*/)?' : '.*';
        i += pattern[i + 2] === '/' ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${pattern.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function walk(dir: string, out: string[], filter: (path: string) => boolean): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    throw new UserError(`cannot read directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out, filter);
    else if ((e.isFile() || e.isSymbolicLink()) && filter(p)) out.push(p);
  }
}

function expandGlob(pattern: string): string[] {
  const abs = pattern.startsWith('/');
  const parts = pattern.split('/');
  const firstGlob = parts.findIndex(hasGlob);
  const base = parts.slice(0, firstGlob).join('/') || (abs ? '/' : '.');
  const re = globToRegExp(parts.slice(firstGlob).join('/'));
  const out: string[] = [];
  const baseAbs = resolve(base);
  walk(baseAbs, out, (p) => re.test(p.slice(baseAbs.length + 1).split(sep).join('/')));
  return out.map((p) => (abs ? p : join(base, p.slice(baseAbs.length + 1))));
}

/**
 * Resolve operands to a list of existing trace files, in a stable order, without duplicates.
 * Files named explicitly are taken whatever their name; directories contribute their `*.pfw[.gz]`.
 */
export function resolveInputs(operands: string[]): string[] {
  if (operands.length === 0) throw new UserError('no input: give trace files, directories or a glob', 2);
  const out: string[] = [];
  for (const op of operands) {
    let st: Stats | undefined;
    try {
      st = statSync(op);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      const found: string[] = [];
      walk(op, found, (p) => isTraceName(p));
      if (found.length === 0) throw new UserError(`no trace files (*.pfw, *.pfw.gz) in directory ${op}`);
      out.push(...found);
    } else if (st) {
      out.push(op);
    } else if (hasGlob(op)) {
      const found = expandGlob(op);
      if (found.length === 0) throw new UserError(`no files match ${op}`, 2);
      out.push(...found);
    } else {
      throw new UserError(`no such file or directory: ${op}`, 2);
    }
  }
  return [...new Set(out)];
}
