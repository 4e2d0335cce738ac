import * as fs from 'node:fs';
import { threadId } from 'node:worker_threads';

// Bound before any plugin wraps node:fs: the tracer's own calls are never traced.
const { existsSync, readlinkSync } = fs;

/**
 * Who holds the trace file's write lock, as the lock word says it: the holder's OS thread id on
 * Linux, where /proc/self/task/<tid> exists exactly while that thread lives, so a waiter sees at
 * once that a terminated worker's lock is free to take. Elsewhere a negative number unique to the
 * thread, whose death cannot be seen (trace-file.ts then takes the lock over after LOCK_STALE_MS).
 */
let owner = 0;

/** This thread's lock word (never 0, which means free). */
export function lockOwner(): number {
  if (owner === 0) owner = osThreadId() ?? -(threadId + 1);
  return owner;
}

/** Whether the thread whose lock word is `word` has ended. */
export function ownerDead(word: number): boolean {
  if (word <= 0) return false;
  try {
    return !existsSync(`/proc/self/task/${word}`);
  } catch {
    return false;
  }
}

/** The calling thread's OS id, or null where /proc does not tell it. */
function osThreadId(): number | null {
  try {
    // "<pid>/task/<tid>", resolved in the calling thread (a sync fs call runs on it).
    const link = readlinkSync('/proc/thread-self');
    const tid = Number(link.slice(link.lastIndexOf('/') + 1));
    return Number.isInteger(tid) && tid > 0 && tid < 2 ** 31 && existsSync(`/proc/self/task/${tid}`) ? tid : null;
  } catch {
    return null;
  }
}
