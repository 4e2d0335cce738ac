import { getTracer } from '@dftracer/core';

const warned = new Set<string>();

export function warnOnce(key: string, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  const t = getTracer();
  if (t !== null) t.log('WARN', message);
  else process.stderr.write(`dftracer: WARN: ${message}\n`);
}
