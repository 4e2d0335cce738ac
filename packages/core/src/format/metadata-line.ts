import { MAX_EVENT_BYTES, cutText, jsonString } from './line-format.js';

/** A label from anything a JS caller may pass where a string is expected. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return typeof v === 'symbol' ? v.toString() : String(v);
  } catch {
    return '[unserializable]';
  }
}

/**
 * One metadata record line (`ph: "M"`) with its id: `name` and `value` JSON-escaped, and, like events, cut
 * (value first, then name) with the …[truncated N chars] marker when the line would exceed 16 KiB.
 */
export function metadataLine(kind: string, id: number, pid: number, tid: number, hhash: string, name: unknown, value: unknown, onCut?: (count: number) => void): string {
  const head = `{"id":${id},"name":${jsonString(kind)},"cat":"dftracer","pid":${pid},"tid":${tid},"ph":"M","args":{"hhash":"${hhash}","name":`;
  const n = asText(name);
  const v = asText(value);
  let line = `${head}${jsonString(n)},"value":${jsonString(v)}}}\n`;
  if (line.length <= MAX_EVENT_BYTES / 3 || Buffer.byteLength(line) <= MAX_EVENT_BYTES) return line;
  onCut?.(1);
  for (const [nameMax, valueMax] of [[Infinity, 4096], [Infinity, 1024], [4096, 256], [1024, 64], [256, 16]] as const) {
    line = `${head}${jsonString(n.length > nameMax ? cutText(n, nameMax) : n)},"value":${jsonString(v.length > valueMax ? cutText(v, valueMax) : v)}}}\n`;
    if (Buffer.byteLength(line) <= MAX_EVENT_BYTES) return line;
  }
  return line;
}
