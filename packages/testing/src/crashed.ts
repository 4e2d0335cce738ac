import { readFileSync } from 'node:fs';
import type { Trace } from './event.js';
import { walkGzipMembers } from './gzip.js';
import { fromEvents, isGzip, parseTrace } from './read.js';

export interface CrashedTrace extends Trace {
  /** Complete gzip members (0 for plain files). */
  readonly memberCount: number;
  /** Bytes of a cut-off last member or line, ignored. */
  readonly tailBytes: number;
}

/**
 * Reads what a killed process left: every complete member (or, uncompressed, every complete
 * line) must hold whole, valid JSON lines; an incomplete tail is ignored and reported.
 */
export function readCrashedTrace(file: string): CrashedTrace {
  const raw = readFileSync(file);
  let text: string;
  let memberCount = 0;
  let tailBytes: number;
  if (file.endsWith('.gz') || isGzip(raw)) {
    const walk = walkGzipMembers(raw);
    for (const [i, m] of walk.members.entries()) if (!m.endsWith('\n')) throw new Error(`${file}: member ${i} does not end with a whole line`);
    text = walk.members.join('');
    memberCount = walk.members.length;
    tailBytes = walk.tailBytes;
  } else {
    const s = raw.toString('utf8');
    const cut = s.lastIndexOf('\n') + 1;
    text = s.slice(0, cut);
    tailBytes = Buffer.byteLength(s.slice(cut));
  }
  if (text === '') return { ...fromEvents([], []), memberCount, tailBytes };
  return { ...parseTrace(file, text), memberCount, tailBytes };
}
