/**
 * A growable byte buffer that a flush writes its lines into, one `write` per line. Encoding each
 * short line as it is built costs about a third less than concatenating a batch into one string and
 * encoding that: V8 must flatten a rope of ~20 pieces per line first (core README, "Performance").
 */
export class TextSink {
  private buf: Buffer;
  private len = 0;

  constructor(size = 1 << 16) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Appends a string as UTF-8. */
  write(s: string): void {
    const room = s.length * 3; // the most UTF-8 bytes one UTF-16 unit can take
    if (this.buf.length - this.len < room) this.grow(room);
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  /** The bytes written since the last `clear` (a view: valid until the next write or clear). */
  view(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  clear(): void {
    this.len = 0;
  }

  private grow(room: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.len + room, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
}
