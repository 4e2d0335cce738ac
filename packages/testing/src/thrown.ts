/**
 * For tests that an exception thrown inside traced code reaches the caller untouched: note it
 * where it is thrown, then compare it with what the caller caught.
 */
export interface Seen {
  thrown?: unknown;
  message?: string;
  stack?: string;
}

/** Notes `e` (the object, its message and stack as thrown) and throws it on. */
export function remember(seen: Seen, e: unknown): never {
  seen.thrown = e;
  seen.message = (e as Error).message;
  seen.stack = (e as Error).stack;
  throw e;
}

/** What `f` threw (a test failure when it returned). */
export function caught(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

/** How `got` differs from the error noted in `seen` (the same object, message and stack), or [] when it does not. */
export function errorDifferences(seen: Seen, got: unknown, pattern: RegExp): string[] {
  const out: string[] = [];
  if (!(seen.thrown instanceof Error)) out.push(`nothing was noted as thrown (got ${String(seen.thrown)})`);
  if (got !== seen.thrown) out.push('the caller caught another object than the one thrown');
  const e = got as Error;
  if (e?.message !== seen.message) out.push(`message changed: ${JSON.stringify(seen.message)} → ${JSON.stringify(e?.message)}`);
  if (!pattern.test(String(e?.message))) out.push(`message ${JSON.stringify(e?.message)} does not match ${pattern}`);
  if (e?.stack !== seen.stack) out.push('stack changed');
  return out;
}
