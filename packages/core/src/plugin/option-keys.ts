/**
 * Throws a TypeError for the first key of `options` that is not in `known`, naming it and the
 * closest known name: `initializeLog: unknown option "logfile" (did you mean logFile?); known
 * options: enable, logFile, …`. `who` names the function (and the nested option: `loadTf webgpu`).
 * One check for the core and every integration, so a typo never passes silently.
 */
export function checkOptionKeys(who: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = closest(key, known);
    throw new TypeError(`${who}: unknown option ${JSON.stringify(key)}${near === undefined ? '' : ` (did you mean ${near}?)`}; known options: ${known.join(', ')}`);
  }
}

/** The known name nearest to `key` (case ignored), when it is near enough to be the one meant. */
export function closest(key: string, known: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const name of known) {
    const d = distance(k, name.toLowerCase());
    if (d < bestD) [best, bestD] = [name, d];
  }
  // a third of the name's letters (at least 2) may differ: `logfile`, `compresionLevel`, `prefered`
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** Levenshtein distance, one row at a time. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
