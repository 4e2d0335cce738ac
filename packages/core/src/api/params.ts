/**
 * Which positional parameters of a traced function carry pydftracer's step coordinates, found
 * from the function's source once at decoration time, so each call only reads `args[index]`.
 */
export interface ParamSlot {
  /** The arg key written to the trace. */
  readonly key: string;
  readonly index: number;
  /** A numeric literal default (`step = 0`), used when the call passes nothing. */
  readonly dflt?: number;
}

const KEYS: Record<string, string> = {
  epoch: 'epoch',
  step: 'step',
  image_idx: 'image_idx',
  imageIdx: 'image_idx',
  image_size: 'image_size',
  imageSize: 'image_size',
};

export function paramSlots(fn: Function): ParamSlot[] {
  let list: string;
  try {
    list = paramList(Function.prototype.toString.call(fn));
  } catch {
    return [];
  }
  const slots: ParamSlot[] = [];
  splitTopLevel(list).forEach((raw, index) => {
    const m = /^\s*([A-Za-z_$][\w$]*)\s*(?:=\s*(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\s*)?(?:=.*)?$/s.exec(raw);
    if (m === null) return;
    const key = KEYS[m[1]!];
    if (key === undefined) return;
    slots.push(m[2] !== undefined ? { key, index, dflt: Number(m[2]) } : { key, index });
  });
  return slots;
}

/** The text between the parameter list's parentheses (or the lone arrow parameter). */
function paramList(src: string): string {
  const s = src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
  const arrow = /^\s*(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(s);
  if (arrow !== null) return arrow[1]!;
  if (/^\s*class\b/.test(s)) {
    const c = /\bconstructor\s*\(/.exec(s);
    if (c === null) return '';
    return balanced(s, c.index + c[0].length - 1);
  }
  const open = s.indexOf('(');
  return open < 0 ? '' : balanced(s, open);
}

function balanced(s: string, open: number): string {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return s.slice(open + 1, i);
    }
  }
  return '';
}

function splitTopLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of list) {
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    if (c === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim() !== '') parts.push(cur);
  return parts;
}
