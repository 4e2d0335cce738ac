/**
 * A growable byte buffer that formatEvents writes its lines into (the reference text; the
 * encoders write bytes with event-bytes.ts). Lines are joined into strings of a
 * few dozen and each string is encoded with one call: a call per line costs about as much as
 * building the line, while a whole batch as one string is slower again (V8 first flattens a rope
 * of ~20 pieces per line).
 */
const LINES_PER_WRITE = 64;

export class TextSink {
  private buf: Buffer;
  private len = 0;
  private pending = '';
  private lines = 0;

  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Appends a string as UTF-8. */
  write(s: string): void {
    this.pending += s;
    if (++this.lines >= LINES_PER_WRITE) this.encode();
  }

  /** The bytes written since the last `clear` (a view: valid until the next write or clear). */
  view(): Buffer {
    this.encode();
    return this.buf.subarray(0, this.len);
  }

  clear(): void {
    this.len = 0;
    this.pending = '';
    this.lines = 0;
  }

  private encode(): void {
    const s = this.pending;
    if (s.length === 0) return;
    const room = s.length * 3; // the most UTF-8 bytes one UTF-16 unit can take
    if (this.buf.length - this.len < room) this.grow(room);
    this.len += this.buf.write(s, this.len, 'utf8');
    this.pending = '';
    this.lines = 0;
  }

  private grow(room: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.len + room, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}
