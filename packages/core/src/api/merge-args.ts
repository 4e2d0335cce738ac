import type { ArgValue } from '../types.js';

/**
 * `{ ...a, ...b }` that never throws: args whose getters throw become one `args_error` note, as
 * the recorder writes them (the user's call goes on untouched).
 */
export function mergeArgs(a: Record<string, ArgValue>, b: Record<string, ArgValue>): Record<string, ArgValue> {
  try {
    return { ...a, ...b };
  } catch {
    return { ...a, args_error: 'the args could not be read' };
  }
}
