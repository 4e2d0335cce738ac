/**
 * JSON for an object arg (or metadata value); never throws. Replacements, as for top-level args:
 * NaN/±Infinity → "NaN"/"Infinity"/"-Infinity", bigint → number if safe else decimal string,
 * function → "[Function: name]", symbol → "Symbol(desc)", a reference to an ancestor →
 * "[Circular]" (a shared, non-cyclic reference is written in full). If serialisation throws
 * anywhere (a throwing toJSON or getter, a proxy, extreme depth) the value is "[unserializable]".
 */
export function safeJson(v: unknown): string {
  // The objects on the path from the root to the value being serialised.
  const path: object[] = [];
  try {
    const s = JSON.stringify(v, function (this: unknown, _k: string, x: unknown): unknown {
      // `this` holds x: the ancestors are the path up to it (the root's holder is not on the path).
      path.length = path.lastIndexOf(this as object) + 1;
      switch (typeof x) {
        case 'bigint':
          return x >= MIN_SAFE && x <= MAX_SAFE ? Number(x) : x.toString();
        case 'number':
          return Number.isFinite(x) ? x : String(x);
        case 'function':
          return `[Function: ${(x as { name?: unknown }).name || '(anonymous)'}]`;
        case 'symbol':
          return x.toString();
        case 'object':
          if (x === null) return x;
          if (path.includes(x)) return '[Circular]';
          path.push(x);
          return x;
        default:
          return x;
      }
    });
    return s === undefined ? 'null' : s;
  } catch {
    return '"[unserializable]"';
  }
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
