import { describe, expect, it } from 'vitest';
import { TextSink } from './text-sink.js';

describe('TextSink', () => {
  it('holds exactly the UTF-8 of what was written, across batches of lines and growth', () => {
    const sink = new TextSink(16); // grows many times
    const lines = Array.from({ length: 1000 }, (_, i) => `{"id":${i},"name":"é→𝄞 ${'x'.repeat(i % 97)}"}\n`);
    for (const l of lines) sink.write(l);
    expect(sink.view().equals(Buffer.from(lines.join(''), 'utf8'))).toBe(true);
    // a view mid-batch holds the lines not yet encoded too
    sink.clear();
    sink.write('a\n');
    sink.write('ü\n');
    expect(sink.view().toString('utf8')).toBe('a\nü\n');
    sink.write('b\n');
    expect(sink.view().toString('utf8')).toBe('a\nü\nb\n');
    sink.clear();
    expect(sink.view().length).toBe(0);
  });
});
