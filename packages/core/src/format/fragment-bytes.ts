/**
 * The UTF-8 bytes of an interner table (kindFrag, keyFrag, strFrag), each entry encoded once and
 * kept by index as the table grows. An entry whose text was replaced (Interner.transientKind
 * redefines a kind slot) is encoded again: the check is one comparison of the same string object.
 */
export class FragmentBytes {
  private readonly bytes: Uint8Array[] = [];
  private readonly texts: string[] = [];

  constructor(private readonly table: readonly string[]) {}

  /** Entry k's bytes (k < table.length). */
  get(k: number): Uint8Array {
    const text = this.table[k]!;
    return this.texts[k] === text ? this.bytes[k]! : this.encode(k, text);
  }

  private encode(k: number, text: string): Uint8Array {
    // Fill in order up to k, so the arrays never hold holes (V8 keeps them packed and fast).
    for (let j = this.texts.length; j < k; j++) this.set(j, this.table[j]!);
    this.set(k, text);
    return this.bytes[k]!;
  }

  private set(k: number, text: string): void {
    this.bytes[k] = utf8Bytes(text);
    this.texts[k] = text;
  }
}

/**
 * `text`'s UTF-8 bytes as a plain Uint8Array (a copy, never a view of Buffer's pool): every byte
 * source of a hot copy loop is one, since a Buffer among them would give that code a second map.
 */
export function utf8Bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}
