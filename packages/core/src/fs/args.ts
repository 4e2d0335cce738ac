/**
 * The byte count and file position of a read/write call, worked out from its arguments the way
 * Node's own argument handling does (node v20 `lib/fs.js`, `lib/internal/fs/promises.js`), so the
 * event says what was asked of the kernel: `count` bytes at `offset` (pread/pwrite) or at the
 * current position (read/write, `pos` -1).
 *
 * The parsers write into one shared scratch object instead of returning a new one: they run on
 * every traced read and write, synchronously, and are read back at once. A getter of an options
 * object may itself read on a traced fd, which parses too: each parser writes `io` only after the
 * last of the caller's getters has run.
 */
export const io = { count: 0, pos: -1 };

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

type Opts = { offset?: unknown; length?: unknown; position?: unknown; buffer?: unknown };

function byteLen(b: unknown): number {
  return ArrayBuffer.isView(b) ? b.byteLength : 0;
}

/** A position argument as a file offset; -1 for "the current position" (null, undefined, -1). */
function position(p: unknown): number {
  if (typeof p === 'number') return p >= 0 ? p : -1;
  if (typeof p === 'bigint') return p >= 0n ? Number(p) : -1;
  return -1;
}

/** fs.readSync(fd, buffer, offset?, length?, position?) | (fd, buffer, options?) */
export function parseReadSync(buffer: unknown, ooo: unknown, length: unknown, pos: unknown, argc: number): void {
  if (argc <= 3 || typeof ooo === 'object') {
    const o = (ooo ?? EMPTY) as Opts;
    const off = o.offset === undefined ? 0 : Number(o.offset);
    const count = (o.length === undefined ? byteLen(buffer) - off : Number(o.length)) | 0;
    io.pos = position(o.position);
    io.count = count; // after the last getter, which may itself read (and parse) on a traced fd
  } else {
    io.count = Number(length) | 0;
    io.pos = position(pos);
  }
}

const DEFAULT_READ_BUFFER = 16384; // Buffer.alloc(16384) when fs.read gets no buffer

/** fs.read(fd, buffer, offset, length, position, cb) | (fd, buffer, options, cb) | (fd, options, cb) | (fd, cb) */
export function parseReadCallback(a: ArrayLike<unknown>): void {
  const argc = a.length;
  if (argc <= 4) {
    let params: Opts = EMPTY;
    let blen = DEFAULT_READ_BUFFER;
    if (argc === 4) {
      params = (a[2] ?? EMPTY) as Opts;
      blen = byteLen(a[1]);
    } else if (argc === 3) {
      if (ArrayBuffer.isView(a[1])) blen = a[1].byteLength;
      else {
        params = (a[1] ?? EMPTY) as Opts;
        if (params.buffer !== undefined) blen = byteLen(params.buffer);
      }
    }
    const off = params.offset === undefined ? 0 : Number(params.offset);
    const count = (params.length === undefined ? blen - off : Number(params.length)) | 0;
    io.pos = position(params.position);
    io.count = count; // as in parseReadSync
  } else {
    io.count = Number(a[3]) | 0;
    io.pos = position(a[4]);
  }
}

/** FileHandle#read(buffer, offset?, length?, position?) | (buffer, options) | (options) */
export function parseReadHandle(a: ArrayLike<unknown>): void {
  const first = a[0];
  let offset: unknown = a[1];
  let length: unknown = a[2];
  let pos: unknown = a[3];
  let blen: number;
  if (ArrayBuffer.isView(first)) blen = first.byteLength;
  else {
    const o = (first ?? EMPTY) as Opts;
    blen = o.buffer === undefined ? DEFAULT_READ_BUFFER : byteLen(o.buffer);
    offset = o.offset === undefined ? 0 : o.offset;
    length = o.length;
    pos = o.position;
  }
  if (offset !== null && typeof offset === 'object') {
    const o = offset as Opts;
    offset = o.offset === undefined ? 0 : o.offset;
    length = o.length;
    pos = o.position;
  }
  const off = offset == null ? 0 : Number(offset);
  io.count = length == null ? blen - off : Number(length);
  io.pos = typeof pos === 'number' && Number.isSafeInteger(pos) && pos >= 0 ? pos : -1;
}

/**
 * fs.writeSync / fs.write / FileHandle#write: (buffer, offset?, length?, position?) |
 * (buffer, options) | (string, position?, encoding?). `numericPositionOnly`: the callback and
 * promise forms ignore a bigint position.
 */
export function parseWrite(data: unknown, a2: unknown, a3: unknown, a4: unknown, numericPositionOnly: boolean): void {
  if (ArrayBuffer.isView(data)) {
    let off: unknown = a2;
    let len: unknown = a3;
    let pos: unknown = a4;
    if (typeof a2 === 'object') {
      const o = (a2 ?? EMPTY) as Opts;
      off = o.offset === undefined ? 0 : o.offset;
      len = o.length;
      pos = o.position;
    }
    const offset = off == null || typeof off === 'function' ? 0 : Number(off);
    io.count = typeof len === 'number' ? len : data.byteLength - offset;
    io.pos = numericPositionOnly && typeof pos !== 'number' ? -1 : position(pos);
  } else if (typeof data === 'string') {
    io.count = Buffer.byteLength(data, typeof a3 === 'string' ? (a3 as BufferEncoding) : 'utf8');
    io.pos = typeof a2 === 'number' && a2 >= 0 ? a2 : -1;
  } else {
    io.count = 0;
    io.pos = -1;
  }
}

/** readv/writev: total bytes of the buffers and the position (numbers only, as Node). */
export function parseVector(buffers: unknown, pos: unknown): void {
  let n = 0;
  if (Array.isArray(buffers)) for (let i = 0; i < buffers.length; i++) n += byteLen(buffers[i]);
  io.count = n;
  io.pos = typeof pos === 'number' && pos >= 0 ? pos : -1;
}

/** Bytes of whole-file data as written: strings in their encoding, views as their byteLength. */
export function dataBytes(data: unknown, encoding: unknown): number | undefined {
  if (typeof data === 'string') return Buffer.byteLength(data, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (ArrayBuffer.isView(data)) return data.byteLength;
  return undefined;
}

/** The `encoding` of an fs options argument (a string or `{ encoding }`), else undefined. */
export function encodingOf(options: unknown): unknown {
  if (typeof options === 'string') return options;
  if (options !== null && typeof options === 'object') return (options as { encoding?: unknown }).encoding;
  return undefined;
}

/** Bytes a whole-file read returned: a Buffer's length, or a string's length in its encoding. */
export function resultBytes(result: unknown, encoding: unknown): number {
  if (typeof result === 'string') return Buffer.byteLength(result, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (ArrayBuffer.isView(result)) return result.byteLength;
  return 0;
}

export type TransferKind = 'read' | 'write' | 'readv' | 'writev';

/** The libc name of a transfer that gives a file position. */
export const POSITIONED: Readonly<Record<TransferKind, string>> = { read: 'pread', write: 'pwrite', readv: 'preadv', writev: 'pwritev' };

/**
 * Fills `io` for an async transfer: `first` is where the buffer argument sits (1 after the fd of
 * the callback API, 0 for FileHandle methods). False when the arguments cannot be read.
 */
export function parseAsyncTransfer(kind: TransferKind, a: IArguments, first: 0 | 1, st: { fail(e: unknown): void }): boolean {
  try {
    if (kind === 'read') {
      if (first === 1) parseReadCallback(a);
      else parseReadHandle(a);
    } else if (kind === 'write') parseWrite(a[first], a[first + 1], a[first + 2], a[first + 3], true);
    else parseVector(a[first], a[first + 1]);
    return true;
  } catch (e) {
    // Arguments the tracer cannot read: reported once, and the call goes on untraced.
    st.fail(e);
    return false;
  }
}
