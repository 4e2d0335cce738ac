/** Quick checks on inputs before DuckDB reads them (DuckDB reads a truncated gzip silently). */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { isGzipFile, TraceReader } from './lines.js';

/**
 * The start of a file's (decompressed) content: up to `max` bytes, or less once it holds `lines`
 * complete lines. Decoded as UTF-8.
 */
export async function head(file: string, max = 4096, lines = Infinity): Promise<{ text: string; gzip: boolean; error?: string }> {
  const gzip = await isGzipFile(file);
  const input = createReadStream(file, { highWaterMark: 64 * 1024 });
  const stream = gzip ? input.pipe(createGunzip()) : input;
  const parts: Buffer[] = [];
  let len = 0;
  let newlines = 0;
  let text = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parts.push(chunk);
      len += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0 && newlines < lines; i = chunk.indexOf(10, i + 1)) newlines++;
      if (len >= max || newlines >= lines) break;
    }
    text = Buffer.concat(parts).toString('utf8');
  } catch (e) {
    text = Buffer.concat(parts).toString('utf8');
    if (text.length === 0) return { text, gzip, error: (e as Error).message };
  } finally {
    input.destroy();
    stream.destroy();
  }
  return { text: text.slice(0, max), gzip };
}

/**
 * Null when the file looks like a trace (line 1 "[", or a JSON object for bracket-less NDJSON);
 * otherwise a one-line reason.
 */
export async function checkTraceFile(file: string): Promise<string | null> {
  const h = await head(file);
  if (h.error) return `not a readable gzip file (${h.error})`;
  if (h.text.length === 0) return 'empty file: not a DFTracer trace';
  const line1 = h.text.split('\n', 1)[0]!.trim();
  if (line1 === '[' || line1.startsWith('{"')) return null;
  const shown = line1.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
  return `not a DFTracer trace: line 1 is not "[" (starts with ${JSON.stringify(shown)})`;
}

/** Decompress the whole file; a one-line message when its gzip stream is truncated or corrupt. */
export async function gzipProblem(file: string): Promise<string | null> {
  if (!(await isGzipFile(file))) return null;
  const reader = new TraceReader(file);
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  for await (const _ of reader.chunks()) {
    /* just decompress */
  }
  return reader.outcome.gzipError?.message ?? null;
}
