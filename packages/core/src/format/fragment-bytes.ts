/**
 * The UTF-8 bytes of an interner table (kindFrag, keyFrag, strFrag), each entry encoded once and
 * kept by index as the table grows. An entry whose text was replaced (Interner.transientKind
 * redefines a kind slot) is encoded again: the check is one comparison of the same string object.
 */
export class FragmentBytes {
  private readonly packed: Int32Array[] = [];
  private readonly texts: string[] = [];

  constructor(private readonly table: readonly string[]) {}

  /** Entry k's bytes, packed (see packBytes); k < table.length. */
  get(k: number): Int32Array {
    const text = this.table[k]!;
    return this.texts[k] === text ? this.packed[k]! : this.encode(k, text);
  }

  private encode(k: number, text: string): Int32Array {
    // Fill in order up to k, so the arrays never hold holes (V8 keeps them packed and fast).
    for (let j = this.texts.length; j < k; j++) this.set(j, this.table[j]!);
    this.set(k, text);
    return this.packed[k]!;
  }

  private set(k: number, text: string): void {
    this.packed[k] = packBytes(text);
    this.texts[k] = text;
  }
}

/**
 * `text`'s UTF-8 bytes packed four to an int32 (little-endian, zero-padded) after their count:
 * [bytes, w0, w1, …]. A copy then stores a word at a time (putPacked), a quarter of the stores of
 * a byte loop, without the call that TypedArray.set costs on a fragment of a few dozen bytes.
 */
export function packBytes(text: string): Int32Array {
  const bytes = Buffer.from(text, 'utf8');
  const words = (bytes.length + 3) >> 2;
  const padded = new DataView(new ArrayBuffer(4 * words));
  for (let k = 0; k < bytes.length; k++) padded.setUint8(k, bytes[k]!);
  const p = new Int32Array(1 + words);
  p[0] = bytes.length;
  for (let w = 0; w < words; w++) p[1 + w] = padded.getInt32(4 * w, true);
  return p;
}

/**
 * Writes packed bytes at `o` and returns the end. Whole words are stored: up to 3 bytes past the
 * end are overwritten (the caller's room allows for them; what follows is written over them).
 */
export function putPacked(p: Int32Array, out: DataView, o: number): number {
  const words = p.length;
  for (let w = 1; w < words; w++) out.setInt32(o + 4 * w - 4, p[w]!, true);
  return o + p[0]!;
}
