/**
 * A flush's gzip member straight from the event columns, without building the text.
 *
 * Formatting lines and then having zlib search them for repeats costs most of a traced event's CPU.
 * But the encoder already knows where the repeats are: an event's line is its kind's previous line
 * with a few fields changed. So each line is walked as pieces — constant
 * fragments and field values — against that previous line (the reference):
 *
 * - a piece equal to the reference's (a fragment, a number equal as a value, the same interned
 *   string) is copied from it: one match runs over all equal pieces at the same distance, and on
 *   into the next line when that line's reference follows this one's;
 * - a changed number keeps its common leading digits in the match, the rest are literals;
 * - a changed fragment or interned string is copied from where it last appeared, else literals;
 * - the CRC-32 advances over a piece in one step from the piece's own CRC (crc32.ts), so the text is
 *   never needed; only changed numbers' digits are generated at all.
 *
 * Most lines are laid out exactly as their reference (the same keys and interned values, numbers
 * of the same digit count): those take `sameLayoutLine`, which only compares the fields, writes
 * the changed digits, and adjusts the reference line's CRC by each change; the piece-by-piece walk
 * (`line`) handles the rest and records the layout for the next line.
 *
 * The output is byte for byte the gzip of `formatEvents`'s text (the tests decompress and compare),
 * in one dynamic-Huffman block (deflate-block.ts). Lines that may be cut for length (huge string
 * args) are formatted by `formatLine` and written as literals.
 */
import { CRC_START, crcBytes, crcFinish, crcShift, digitCrcTables, shiftMap } from './crc32.js';
import { DeflateTokens, MIN_MATCH, WINDOW, gzipMember } from './deflate-block.js';
import { MAX_EVENT_BYTES } from '../format/line-format.js';
import { TAG_FALSE, TAG_ISTR, TAG_NULL, TAG_NUM, TAG_RAW, TAG_STR, TAG_TRUE } from '../recording/columns.js';
import { formatLine, type FormatContext } from '../format/format-events.js';
import { allocColumns, assignColumns, type ColumnArrays, type EventColumns } from '../recording/columns.js';
import { ARGS_TAIL, BARE_TAIL, DUR_HEAD, FALSE_TEXT, ID_HEAD, NULL_TEXT, PIDX_HEAD, TRUE_TEXT, TS_HEAD, jsonString } from '../format/line-format.js';
import { POW10, differingDigits, numberDigits } from '../format/number-digits.js';

/** A constant piece of text: its bytes, its CRC from a zero register, and where it was last written. */
class Frag {
  readonly bytes: Uint8Array;
  readonly len: number;
  readonly crc: number;
  readonly shift: Int32Array;
  /** The UTF-16 length of the text (for the oversize estimate). */
  readonly chars: number;
  /** Where the fragment was last written, valid in batch `gen`. */
  last = 0;
  gen = -1;

  constructor(text: string) {
    // A plain Uint8Array, as every byte source of the piece loop is: one with Buffers among them
    // would see two maps there and deoptimize.
    this.bytes = new Uint8Array(Buffer.from(text, 'utf8'));
    this.len = this.bytes.length;
    this.crc = crcBytes(0, this.bytes, 0, this.len);
    this.shift = shiftMap(this.len);
    this.chars = text.length;
  }
}

/**
 * A line is a sequence of pieces, two per field: the fragment before the value, then the value
 * (`{"id":` and the id, `,"name":…,"tid":` and the tid, `,"ts":` and ts, …, an arg's `,"key":` and
 * its value), then the line's tail. The first FIXED_PAIRS pairs are the event's own fields.
 */
const FIXED_PAIRS = 6;
const FIXED_PAIRS_BARE = 4; // without metadata: id, tid, ts, dur
/** Args compared with the reference line; later ones are written without a reference. */
const MAX_ARG_SLOTS = 13;
/**
 * Kinds with a reference line at a time (a direct-mapped cache on the kind's number, ~2.4 KiB
 * each): a program with more kinds than this loses some references to collisions, never memory.
 * The cache starts at MIN_STATES and doubles as kinds are interned (a thread with a few kinds, as
 * most worker threads, keeps ~40 KiB, not 600 KiB).
 */
const STATES = 256;
const MIN_STATES = 16;
/**
 * Lines of a kind (its last included) that a line laid out like them may copy from: after each run
 * of changed digits the copy resumes from whichever goes furthest unchanged (the last line with
 * the same duration, say), not only from the last line.
 */
export const SOURCES = 4; // a power of two (ring indices wrap with a mask)
/** Tokens a member's buffer has room for per line before it grows (see member). */
const TOKENS_PER_LINE = 16;
/** Lines of the first member of the first batch (see EventGzip.encode). */
const WARM_LINES = 256;
/** Fields and args of a line, as pairs. */
const PAIRS = FIXED_PAIRS + MAX_ARG_SLOTS;
/** Per-kind state slots: one per piece of the fixed pairs and the compared args. */
const SLOTS = 2 * (FIXED_PAIRS + MAX_ARG_SLOTS);
/** Bytes kept per slot for a number's text: the longest double is 24 characters. */
const DIG = 24;
const DIGIT_CRC = digitCrcTables(DIG);
/** Tag of a key slot (a value slot uses the arg tags of recording/columns.ts). */
const TAG_KEY = 7;
/** Tag of a slot not yet written. */
const TAG_NONE = 255;

/**
 * New text per event above which a batch goes to zlib instead (prefersText): with a long path per
 * event that differs every time, this encoder writes about three times zlib -1's bytes.
 */
const TEXT_CHARS_PER_EVENT = 8;

/** Under this many UTF-16 units a line is never cut (formatLine's first test). */
const SAFE_LINE_CHARS = MAX_EVENT_BYTES / 3;
/**
 * A line written by pieces is at most MAX_EVENT_BYTES long, so a reference line that began at most
 * this far back stays inside the 32 KiB window for the whole line.
 */
const REF_REACH = WINDOW - MAX_EVENT_BYTES;

const NO_BYTES = new Uint8Array(0);
const NO_STRINGS: readonly string[] = [];

/**
 * The batch's columns, held by one object of one shape for every batch. The encoder's hot code
 * would otherwise see the shapes of both EventBuffer and the writer thread's batch object (and of
 * their arrays' element kinds) and deoptimize as each appears.
 */
interface Columns extends ColumnArrays {}
class Columns implements EventColumns {
  count = 0;
  argObj: readonly string[] = NO_STRINGS;

  constructor() {
    assignColumns(this, allocColumns(0, 0));
  }

  of(b: EventColumns): this {
    this.count = b.count;
    assignColumns(this, b);
    this.argObj = b.argObj;
    return this;
  }
}

export class EventGzip {
  private readonly tokens = new DeflateTokens();
  private readonly cols = new Columns();
  private readonly kindFrags: Frag[] = [];
  private readonly kindTexts: string[] = [];
  private readonly keyFrags: Frag[] = [];
  private readonly strFrags: Frag[] = [];
  private readonly fId = new Frag(ID_HEAD);
  private readonly fTs = new Frag(TS_HEAD);
  private readonly fDur = new Frag(DUR_HEAD);
  private readonly fArgsHead: Frag;
  private readonly fPidx = new Frag(PIDX_HEAD);
  /** The fragment before each fixed field's value. */
  private readonly fixedFrags: readonly Frag[];
  private readonly fTail = new Frag(ARGS_TAIL);
  private readonly fTailBare = new Frag(BARE_TAIL);
  private readonly fTrue = new Frag(TRUE_TEXT);
  private readonly fFalse = new Frag(FALSE_TEXT);
  private readonly fNull = new Frag(NULL_TEXT);

  // Per state (a kind's, see STATES): the kind it holds, where its last line began in this batch
  // (-1: none yet) and how many args that line had. All per-state arrays are made by allocStates.
  private states = 0;
  private owner!: Int32Array;
  private refStart!: Float64Array;
  private refArgs!: Int32Array;
  // Per state and slot: the last line's piece, as value, tag, byte length, CRC, and a number's text.
  private sNum!: Float64Array;
  private sTag!: Uint8Array;
  private sLen!: Int32Array;
  /** A string's or number's CRC (from a zero register). */
  private sCrc!: Int32Array;
  private sDig!: Uint8Array;
  /** Per state and value slot: where the piece began in the last line. */
  private pieceOff!: Int32Array;
  // Per state: the last line's length and CRC (from a zero register), and whether its layout is kept whole.
  private lineLen!: Int32Array;
  private lineCrc!: Int32Array;
  private layoutOk!: Uint8Array;
  // Per state, the copy sources of sameLayoutLine: a ring of the kind's last lines of the current
  // layout (newest at `srcHead`), with where each began and its fields' values by pair.
  private readonly maxSources: number;
  private srcCount!: Uint8Array;
  private srcHead!: Uint8Array;
  private srcStart!: Float64Array;
  private srcNum!: Float64Array;
  /** Per state: a bit per pair whose value has changed since the layout began. */
  private varying!: Int32Array;
  /** The line's field values by pair (sameLayoutLine). */
  private readonly lineVals = new Float64Array(PAIRS);
  /** Per source: a bit per pair whose value differs from the line's (sameLayoutLine). */
  private readonly srcDiff = new Int32Array(SOURCES);
  /** Per pair: the leading digits the line's number shares with the reference's (sameLayoutLine). */
  private readonly refSame = new Int32Array(PAIRS);
  // sameLayoutLine's changed numbers: their slots and new values.
  private readonly diffSlots = new Int32Array(FIXED_PAIRS + MAX_ARG_SLOTS);
  private readonly diffValues = new Float64Array(FIXED_PAIRS + MAX_ARG_SLOTS);
  private sStr: (string | undefined)[] = [];

  // The batch being encoded: uncompressed size so far, raw CRC register, token count, and the
  // open match (its length and distance). A match never starts with fewer than 3 bytes (DEFLATE's
  // shortest): shorter copies that would start one are written as literals instead.
  private pos = 0;
  private crc = CRC_START;
  private t = 0;
  private runLen = 0;
  private runDist = -1;
  private gen = 0;
  /** setNumber's second result: the leading bytes the new text shares with the slot's old one. */
  private same = 0;
  // stringPiece's other results.
  private pieceCrc = 0;
  private pieceCopied = false;
  private refLen = 0;

  private readonly dig = new Uint8Array(32);
  private text = Buffer.allocUnsafe(1 << 16);
  /** The text scratch as a plain Uint8Array (see Frag.bytes). */
  private textBytes = new Uint8Array(this.text.buffer, this.text.byteOffset, this.text.length);
  private readonly cuts = { count: 0 };
  /** Interned strings prefersText has counted. */
  private textSeen = 0;
  /** Whether a batch has been encoded (see encode). */
  private warmed = false;
  // The longest key, and the longest interned string or number text (UTF-16 units).
  private maxKeyChars = 0;
  private maxValueChars = DIG;

  /**
   * `sources`: how many of a kind's last lines a line may copy from (1: only the last; up to
   * SOURCES): more find more copies where values recur a few lines back (durations that repeat),
   * for more CPU.
   */
  constructor(
    private readonly ctx: FormatContext,
    sources = 1,
  ) {
    this.maxSources = Math.max(1, Math.min(SOURCES, sources));
    this.allocStates(MIN_STATES);
    this.fArgsHead = new Frag(ctx.argsHead);
    this.fixedFrags = [this.fId, null!, this.fTs, this.fDur, this.fArgsHead, this.fPidx]; // [1]: the kind's
  }

  /**
   * Whether the batch carries so much text not seen before — string args (TAG_STR, TAG_RAW) and
   * newly interned strings, over TEXT_CHARS_PER_EVENT characters per event — that zlib, which
   * finds repeats inside strings, will do better: this encoder copies only whole strings.
   */
  prefersText(b: EventColumns): boolean {
    const limit = TEXT_CHARS_PER_EVENT * b.count;
    let chars = 0;
    const strs = b.argObj;
    for (let k = 0; k < strs.length && chars <= limit; k++) chars += strs[k]!.length;
    const interned = this.ctx.strFrag;
    for (let k = this.textSeen; k < interned.length; k++) chars += interned[k]!.length;
    this.textSeen = interned.length; // each interned string counts once, in the batch it first appears
    return chars > limit;
  }

  /** The gzip bytes of `meta` (metadata lines) and then the events' lines: one member (two for the first big batch). */
  encode(meta: string, b: EventColumns): Buffer {
    if (!this.warmed && b.count > 2 * WARM_LINES) {
      // The first big batch goes out as two members (a multi-member file reads as one text): V8
      // keeps type feedback only once a function has run a while, so the paths of a first member's
      // first line would be compiled without feedback and deoptimize on the next batch. The
      // tracer's first batch is that short already (tracer.ts FIRST_BATCH); this covers other feeders.
      this.warmed = true;
      return Buffer.concat([this.member(meta, b, 0, WARM_LINES), this.member('', b, WARM_LINES, b.count)]);
    }
    this.warmed = true;
    return this.member(meta, b, 0, b.count);
  }

  /** One gzip member of `meta` and the lines of events [first, end). */
  private member(meta: string, b: EventColumns, first: number, end: number): Buffer {
    this.prepare();
    // Room for the member's tokens up front (a trace line takes 5–15), so the buffer seldom grows
    // mid-member, where optimized code meeting the growth path for the first time would deoptimize.
    this.tokens.reset(Math.max(1 << 14, meta.length + TOKENS_PER_LINE * (end - first)));
    this.pos = 0;
    this.crc = CRC_START;
    this.t = 0;
    this.runLen = 0;
    this.runDist = -1;
    this.gen++;
    this.cuts.count = 0;
    if (meta.length > 0) this.textLiterals(meta);
    const cols = this.cols.of(b);
    let from = first === 0 ? 0 : cols.argEnd[first - 1]!;
    for (let i = first; i < end; i++) {
      const to = cols.argEnd[i]!;
      this.line(cols, i, from, to);
      from = to;
    }
    this.closeRun();
    if (this.sStr.length > 0) this.sStr = []; // keep none of the program's strings alive
    this.cols.argObj = NO_STRINGS;
    if (this.cuts.count > 0) this.ctx.onTruncated(this.cuts.count);
    return gzipMember(this.tokens, this.t, crcFinish(this.crc), this.pos);
  }

  /** Compiles fragments interned since the last batch; forgets the last batch's lines. */
  private prepare(): void {
    const { kindFrag, keyFrag, strFrag } = this.ctx;
    // A kind slot may be redefined between batches (Interner.transientKind): rebuild its fragment.
    for (let k = 0; k < this.kindFrags.length; k++) if (this.kindTexts[k] !== kindFrag[k]) this.setKind(k, kindFrag[k]!);
    for (let k = this.kindFrags.length; k < kindFrag.length; k++) this.setKind(k, kindFrag[k]!);
    for (let k = this.keyFrags.length; k < keyFrag.length; k++) {
      const f = new Frag(keyFrag[k]!);
      this.keyFrags.push(f);
      this.maxKeyChars = Math.max(this.maxKeyChars, f.chars);
    }
    for (let k = this.strFrags.length; k < strFrag.length; k++) {
      const f = new Frag(strFrag[k]!);
      this.strFrags.push(f);
      this.maxValueChars = Math.max(this.maxValueChars, f.chars);
    }
    let want = this.states;
    while (want < STATES && want < kindFrag.length) want *= 2;
    if (want > this.states) this.allocStates(want);
    this.refStart.fill(-1);
    this.srcCount.fill(0);
    this.varying.fill(0);
  }

  private setKind(k: number, text: string): void {
    this.kindFrags[k] = new Frag(text);
    this.kindTexts[k] = text;
  }

  /** (Re)makes the per-state arrays for `n` states (a power of two), every state empty. */
  private allocStates(n: number): void {
    this.states = n;
    this.owner = new Int32Array(n).fill(-1);
    this.refStart = new Float64Array(n).fill(-1);
    this.refArgs = new Int32Array(n);
    this.sNum = new Float64Array(n * SLOTS);
    this.sTag = new Uint8Array(n * SLOTS).fill(TAG_NONE);
    this.sLen = new Int32Array(n * SLOTS);
    this.sCrc = new Int32Array(n * SLOTS);
    this.sDig = new Uint8Array(n * SLOTS * DIG);
    this.pieceOff = new Int32Array(n * SLOTS);
    this.lineLen = new Int32Array(n);
    this.lineCrc = new Int32Array(n);
    this.layoutOk = new Uint8Array(n);
    this.srcCount = new Uint8Array(n);
    this.srcHead = new Uint8Array(n);
    this.srcStart = new Float64Array(n * SOURCES);
    this.srcNum = new Float64Array(n * SOURCES * PAIRS);
    this.varying = new Int32Array(n);
  }

  private line(b: Columns, i: number, from: number, to: number): void {
    const kind = b.kind[i]!;
    const meta = this.ctx.incMetadata;
    const nArgs = meta ? to - from : 0;
    if (nArgs > 0 && (b.argObj.length > 0 || nArgs * (this.maxKeyChars + this.maxValueChars) > SAFE_LINE_CHARS - 256 - this.kindFrags[kind]!.chars) && this.mayBeCut(b, kind, from, to)) {
      this.textLiterals(formatLine(b, this.ctx, i, from, to, this.cuts));
      this.refStart[this.stateOf(kind)] = -1; // its slots were not kept
      return;
    }
    const start = this.pos;
    const st = this.stateOf(kind);
    const refStart = this.refStart[st]!;
    const cmp = refStart >= 0;
    if (cmp && this.layoutOk[st] === 1 && nArgs === this.refArgs[st] && start - refStart <= REF_REACH && this.sameLayoutLine(b, i, from, st, meta ? FIXED_PAIRS + nArgs : FIXED_PAIRS_BARE)) return;
    const refArgs = cmp ? this.refArgs[st]! : 0;
    // The reference line's position of the piece at hand; -1 once pieces no longer correspond.
    let rpos = cmp && start - refStart <= REF_REACH ? refStart : -1;
    const fixedPairs = meta ? FIXED_PAIRS : FIXED_PAIRS_BARE;
    const tailPiece = 2 * (fixedPairs + nArgs);
    const base = st * SLOTS;
    const gen = this.gen;
    const kindFrag = this.kindFrags[kind]!;
    const { sTag, sNum, sLen, sCrc, sDig: sd, pieceOff } = this;
    const crcStart = this.crc;
    let pos = start;
    let crc = crcStart;

    for (let q = 0; q <= tailPiece; q++) {
      const pair = q >> 1;
      const arg = pair - fixedPairs; // < 0: a fixed field
      const slot = arg < MAX_ARG_SLOTS ? base + q : -1;
      // Whether the reference line has this piece (its slot holds the reference's).
      const valid = cmp && (arg < 0 || q === tailPiece || (arg < refArgs && arg < MAX_ARG_SLOTS));
      if (!valid || (q === tailPiece && nArgs !== refArgs)) rpos = -1;
      // What this piece writes: a copy of cLen bytes cDist back (they are cSrc[cOff…]), then lLen
      // literals from lSrc.
      let cLen = 0;
      let cDist = 0;
      let cSrc: Uint8Array = NO_BYTES;
      let cOff = 0;
      let lSrc: Uint8Array = NO_BYTES;
      let lOff = 0;
      let lLen = 0;
      let len: number;
      // A piece that is a fragment: whether it is the reference's, and the reference's length.
      let f: Frag | null = null;
      let same = true;
      let refLen = 0;
      if ((q & 1) === 0) {
        if (q === tailPiece) f = meta ? this.fTail : this.fTailBare;
        else if (arg < 0) f = pair === 1 ? kindFrag : this.fixedFrags[pair]!;
        else {
          const key = b.argKey[from + arg]!;
          f = this.keyFrags[key]!;
          same = valid && sNum[slot] === key;
          if (rpos >= 0) refLen = sLen[slot]!;
          if (!same && slot >= 0) {
            sTag[slot] = TAG_KEY;
            sNum[slot] = key;
            sLen[slot] = f.len;
          }
        }
        if (same) refLen = f.len;
      } else {
        if (slot >= 0) pieceOff[slot] = pos - start;
        let tag = TAG_NUM;
        let v: number;
        let json = true;
        if (arg < 0) {
          v = pair === 0 ? b.id[i]! : pair === 1 ? b.tid[i]! : pair === 2 ? b.ts[i]! : pair === 3 ? b.dur[i]! : pair === 4 ? b.level[i]! : b.pidx[i]!;
          json = pair === 2; // formatLine writes ts with numberText, the other fields with String
        } else {
          tag = b.argTag[from + arg]!;
          v = b.argNum[from + arg]!;
        }
        if (tag === TAG_NUM) {
          if (slot < 0) {
            len = numberDigits(v, this.dig, json);
            crc = crcShift(crc, shiftMap(len)) ^ crcBytes(0, this.dig, 0, len);
            lSrc = this.dig;
            lLen = len;
          } else {
            const old = sLen[slot]!;
            const refNum = valid && sTag[slot] === TAG_NUM;
            if (refNum && sNum[slot] === v) {
              len = old;
              if (rpos >= 0) {
                cDist = pos - rpos;
                cLen = len;
                cSrc = sd;
                cOff = slot * DIG;
              } else {
                lSrc = sd;
                lOff = slot * DIG;
                lLen = len;
              }
            } else {
              len = this.setNumber(slot, v, json, refNum && rpos >= 0 ? old : -1);
              // Leading digits are copied only where they extend the open match or are long
              // enough to stand alone.
              let k = this.same;
              if (k > 0 && ((this.runLen > 0 && this.runDist === pos - rpos) || k >= MIN_MATCH)) {
                cDist = pos - rpos;
                cLen = k;
                cSrc = sd;
                cOff = slot * DIG;
              } else k = 0;
              lSrc = sd;
              lOff = slot * DIG + k;
              lLen = len - k;
            }
            if (rpos >= 0) rpos += old;
            crc = crcShift(crc, shiftMap(len)) ^ sCrc[slot]!;
          }
          pos += len;
        } else if (tag === TAG_STR || tag === TAG_RAW) {
          len = this.stringPiece(slot, tag, b.argObj[v]!, valid && rpos >= 0);
          crc = crcShift(crc, shiftMap(len)) ^ this.pieceCrc;
          if (this.pieceCopied) {
            cDist = pos - rpos;
            cLen = len;
          } else {
            lSrc = this.textBytes;
            lLen = len;
          }
          if (rpos >= 0) rpos += this.refLen;
          pos += len;
        } else {
          // An interned value: a fragment of its own.
          f = tag === TAG_ISTR ? this.strFrags[v]! : tag === TAG_TRUE ? this.fTrue : tag === TAG_FALSE ? this.fFalse : this.fNull;
          const id = tag === TAG_ISTR ? v : 0;
          same = valid && sTag[slot] === tag && sNum[slot] === id;
          if (rpos >= 0) refLen = sLen[slot]!;
          if (!same && slot >= 0) {
            sTag[slot] = tag;
            sNum[slot] = id;
            sLen[slot] = f.len;
          }
        }
      }
      if (f !== null) {
        // A fragment: copied from the reference if it has the same one here, else from wherever
        // it was last written (a file hash seen a few events ago), else literals.
        len = f.len;
        cSrc = f.bytes;
        if (same && rpos >= 0) {
          cDist = pos - rpos;
          cLen = len;
        } else {
          // Each test on its own, not behind `&&`: a test that only runs after another passes may
          // not have run when V8 compiles this function, and its first run would deoptimize it.
          const d = pos - f.last;
          const near = d <= WINDOW;
          const long = len >= MIN_MATCH;
          if (f.gen === gen && near && long) {
            cDist = d;
            cLen = len;
          } else {
            lSrc = f.bytes;
            lLen = len;
          }
        }
        if (rpos >= 0) rpos += refLen;
        f.last = pos;
        f.gen = gen;
        crc = crcShift(crc, f.shift) ^ f.crc;
        pos += len;
      }
      if (cLen > 0) {
        // A copy that would start a match shorter than DEFLATE's 3 bytes (a one-digit value equal
        // to the reference's between pieces that are not) goes out as literals.
        if (cLen < MIN_MATCH && this.runDist !== cDist) this.literals(cSrc, cOff, cLen);
        else this.copy(cDist, cLen);
      }
      if (lLen > 0) this.literals(lSrc, lOff, lLen);
    }
    this.pos = pos;
    this.crc = crc;
    // The layout the next line of this kind may repeat (sameLayoutLine).
    const n = pos - start;
    this.lineLen[st] = n;
    this.lineCrc[st] = crc ^ crcShift(crcStart, shiftMap(n));
    this.layoutOk[st] = nArgs <= MAX_ARG_SLOTS ? 1 : 0;
    this.srcCount[st] = 0; // earlier lines may be laid out otherwise
    this.varying[st] = 0;
    this.refStart[st] = start;
    this.refArgs[st] = nArgs;
  }

  /**
   * The common line: laid out exactly as its reference (the kind's previous line: same keys, tags
   * and interned values, every piece the same length), differing only in the trailing digits of
   * some numbers. Then the line is copies at one distance around the changed digits, and its CRC
   * is the reference line's adjusted by each change (for equal lengths, CRC is linear in the
   * bytes), so equal pieces cost a comparison each and nothing more. Returns false, having changed
   * nothing, when the line does not qualify; `line` then writes it piece by piece.
   */
  private sameLayoutLine(b: Columns, i: number, from: number, st: number, pairs: number): boolean {
    const base = st * SLOTS;
    const { sTag, sNum, sLen, diffSlots, diffValues, lineVals: vals } = this;
    vals[0] = b.id[i]!;
    vals[1] = b.tid[i]!;
    vals[2] = b.ts[i]!;
    vals[3] = b.dur[i]!;
    if (pairs > FIXED_PAIRS_BARE) {
      vals[4] = b.level[i]!;
      vals[5] = b.pidx[i]!;
    }
    // One loop over the pairs with the length test written in: as a method called per pair, V8
    // left it a call (this function is past its inlining budget), ten calls a line.
    let n = 0;
    for (let pair = 0; pair < pairs; pair++) {
      const slot = base + 2 * pair + 1;
      let v: number;
      if (pair >= FIXED_PAIRS) {
        const j = from + pair - FIXED_PAIRS;
        const tag = b.argTag[j]!;
        if (sNum[slot - 1] !== b.argKey[j] || sTag[slot] !== tag) return false;
        v = vals[pair] = b.argNum[j]!;
        if (tag !== TAG_NUM) {
          // Interned values must be the reference's; strings go piece by piece.
          if (tag === TAG_STR || tag === TAG_RAW || sNum[slot] !== (tag === TAG_ISTR ? v : 0)) return false;
          continue;
        }
      } else v = vals[pair]!;
      // The reference's number, or a non-negative integer of as many digits replacing another.
      const r = sNum[slot]!;
      if (v === r) continue;
      const len = sLen[slot]!;
      if (sTag[slot] !== TAG_NUM || !(v >= 0 && r >= 0 && Number.isSafeInteger(r) && Number.isSafeInteger(v) && v >= (len === 1 ? 0 : POW10[len - 1]!) && v < POW10[len]!)) return false;
      diffSlots[n] = slot;
      diffValues[n++] = v;
    }
    const start = this.pos;
    const { pieceOff, sCrc, refSame } = this;
    let refBits = 0; // the pairs that differ from the reference
    for (let k = 0; k < n; k++) refBits |= 1 << ((diffSlots[k]! - base) >> 1);
    const refStart = this.refStart[st]!;
    const sources = this.maxSources > 1 ? this.pushSource(st, refBits) : 1;
    // The CRC, and the slots, follow the changes from the reference (the last line).
    const lineLen = this.lineLen[st]!;
    let delta = 0;
    for (let k = 0; k < n; k++) {
      const slot = diffSlots[k]!;
      const off = pieceOff[slot]!;
      const len = sLen[slot]!;
      const refCrc = sCrc[slot]!;
      const r = sNum[slot]!;
      sNum[slot] = diffValues[k]!;
      this.changedDigits(slot, diffValues[k]!, r, len);
      delta ^= crcShift(refCrc ^ sCrc[slot]!, shiftMap(lineLen - off - len));
      refSame[(slot - base) >> 1] = this.same;
    }
    const varying = this.varying[st]!;
    const lineCrc = this.lineCrc[st]! ^ delta;
    this.lineCrc[st] = lineCrc;
    this.crc = crcShift(this.crc, shiftMap(lineLen)) ^ lineCrc;
    // The bytes: copies from the sources around the digits that differ from them.
    const { srcDiff, srcNum, srcStart } = this;
    const ring = st * SOURCES;
    const head = this.srcHead[st]!;
    srcDiff[0] = refBits;
    for (let c = 1; c < sources; c++) {
      const e = ring + ((head + c) & (SOURCES - 1));
      let bits = 0;
      if (start - srcStart[e]! <= REF_REACH) {
        for (let v = varying; v !== 0; v &= v - 1) {
          const pair = 31 - Math.clz32(v & -v);
          if (srcNum[e * PAIRS + pair] !== vals[pair]) bits |= 1 << pair;
        }
      } else bits = -1; // out of reach: never chosen
      srcDiff[c] = bits;
    }
    let p = 0; // where the next copy starts, in the line
    let j = 0; // the next pair
    for (;;) {
      // The source whose next difference is furthest (the newest on a tie).
      let src = 0;
      let next = nextBit(srcDiff[0]!, j, pairs);
      for (let c = 1; c < sources; c++) {
        const d = nextBit(srcDiff[c]!, j, pairs);
        if (d > next) {
          next = d;
          src = c;
        }
      }
      const e = ring + ((head + src) & (SOURCES - 1));
      const dist = start - (src === 0 ? refStart : srcStart[e]!);
      if (next === pairs) {
        this.copy(dist, lineLen - p);
        break;
      }
      const slot = base + 2 * next + 1;
      const len = sLen[slot]!;
      // Both are non-negative integers of `len` digits (a line changes no other number and keeps its layout).
      const same = src === 0 ? refSame[next]! : len - (vals[next] === 0 ? 1 : differingDigits(vals[next]!, srcNum[e * PAIRS + next]!, this.dig));
      const off = pieceOff[slot]!;
      this.copy(dist, off + same - p);
      this.literals(this.sDig, slot * DIG + same, len - same);
      p = off + len;
      j = next + 1;
    }
    this.pos = start + lineLen;
    this.refStart[st] = start;
    return true;
  }

  /**
   * Makes the reference line (about to be replaced by this one) the newest copy source of state
   * `st`; `changed`: the pairs in which this line differs from it. Only pairs that have changed in
   * this layout are kept per source (the others are equal in all): a pair changing for the first
   * time is given the reference's value in every source. Returns how many sources there are.
   */
  private pushSource(st: number, changed: number): number {
    const { sNum, srcNum } = this;
    const slot0 = st * SLOTS + 1;
    const ring = st * SOURCES;
    const count = this.srcCount[st]!;
    const fresh = changed & ~this.varying[st]!;
    const varying = this.varying[st]! | changed;
    this.varying[st] = varying;
    for (let v = fresh; v !== 0; v &= v - 1) {
      const pair = 31 - Math.clz32(v & -v);
      for (let c = 0; c < count; c++) srcNum[(ring + ((this.srcHead[st]! + c) & (SOURCES - 1))) * PAIRS + pair] = sNum[slot0 + 2 * pair]!;
    }
    const head = (this.srcHead[st] = (this.srcHead[st]! + SOURCES - 1) & (SOURCES - 1));
    const e = ring + head;
    this.srcStart[e] = this.refStart[st]!;
    for (let v = varying; v !== 0; v &= v - 1) {
      const pair = 31 - Math.clz32(v & -v);
      srcNum[e * PAIRS + pair] = sNum[slot0 + 2 * pair]!;
    }
    const n = Math.min(count + 1, SOURCES);
    this.srcCount[st] = n;
    return n;
  }

  /**
   * A string arg (TAG_STR: escaped here; TAG_RAW: JSON already) in `slot` (-1: not kept): copied
   * when it is the reference's (`ref`) and at least 3 bytes long, else its bytes are put in the text
   * scratch for literals. Returns its length; sets pieceCrc, pieceCopied, and refLen (the
   * reference's length). Out of `line` because rare: the hot loop stays small to compile.
   */
  private stringPiece(slot: number, tag: number, s: string, ref: boolean): number {
    const sLen = this.sLen;
    this.refLen = ref ? sLen[slot]! : 0;
    if (ref && this.sTag[slot] === tag && this.sStr[slot] === s && sLen[slot]! >= MIN_MATCH) {
      this.pieceCopied = true;
      this.pieceCrc = this.sCrc[slot]!;
      return sLen[slot]!;
    }
    const len = this.utf8(tag === TAG_STR ? jsonString(s) : s);
    const c0 = crcBytes(0, this.textBytes, 0, len);
    this.pieceCopied = false;
    this.pieceCrc = c0;
    if (slot >= 0) {
      this.sTag[slot] = tag;
      this.sStr[slot] = s;
      sLen[slot] = len;
      this.sCrc[slot] = c0;
    }
    return len;
  }

  /** The state slot of `kind`, taken over (its reference dropped) if another kind held it. */
  private stateOf(kind: number): number {
    const st = kind & (this.states - 1);
    if (this.owner[st] !== kind) {
      this.owner[st] = kind;
      this.refStart[st] = -1;
      this.srcCount[st] = 0;
      this.varying[st] = 0;
    }
    return st;
  }

  /**
   * Whether formatLine might cut this line: an upper bound of its UTF-16 length (escaping can make
   * a string six times longer) over the length under which it never does.
   */
  private mayBeCut(b: Columns, kind: number, from: number, to: number): boolean {
    let chars = 256 + this.kindFrags[kind]!.chars + this.fArgsHead.chars;
    for (let j = from; j < to; j++) {
      chars += this.keyFrags[b.argKey[j]!]!.chars;
      const tag = b.argTag[j]!;
      if (tag === TAG_STR) chars += 6 * b.argObj[b.argNum[j]!]!.length + 2;
      else if (tag === TAG_RAW) chars += b.argObj[b.argNum[j]!]!.length;
      else if (tag === TAG_ISTR) chars += this.strFrags[b.argNum[j]!]!.chars;
      else chars += DIG;
    }
    return chars > SAFE_LINE_CHARS;
  }

  /**
   * Writes number v's text into `slot` (its digits and their prefix CRCs) and returns its length;
   * `this.same` is how many leading bytes it shares with the slot's old text when that is the
   * reference's (`refLen` ≥ 0: its length), else 0.
   */
  private setNumber(slot: number, v: number, json: boolean, refLen: number): number {
    const r = this.sNum[slot]!;
    this.sTag[slot] = TAG_NUM;
    this.sNum[slot] = v;
    if (refLen >= 0 && v >= 0 && r >= 0 && Number.isSafeInteger(v) && Number.isSafeInteger(r)) return this.changedDigits(slot, v, r, refLen);
    return this.anyDigits(slot, v, json, refLen);
  }

  /**
   * A non-negative integer replacing another in `slot` (the old one's text `refLen` long): only the
   * trailing digits that differ are generated — both numbers lose trailing digits until what is
   * left is equal. Updates the slot; returns the new text's length, `same` the digits kept.
   */
  private changedDigits(slot: number, v: number, r: number, refLen: number): number {
    if (v === 0) {
      this.dig[0] = 48; // "0" (also for -0)
      return this.changedTail(slot, 0, 1);
    }
    const k = differingDigits(v, r, this.dig);
    // What is left of v after its k trailing digits: all of it differs if nothing is left.
    return this.changedTail(slot, v >= POW10[k]! ? refLen - k : 0, k);
  }

  /**
   * changedDigits' end: `same` leading digits kept, then the `k` new ones (reversed in `dig`). With
   * digits kept the text keeps its length, and its CRC changes by the changed digits alone.
   */
  private changedTail(slot: number, same: number, k: number): number {
    const sd = this.sDig;
    const end = slot * DIG + same + k - 1;
    const rev = this.dig;
    const { byteAt, zeros } = DIGIT_CRC;
    let c = same === 0 ? zeros[k]! : this.sCrc[slot]!;
    for (let j = 0; j < k; j++) {
      const d = rev[j]!;
      c ^= byteAt[16 * j + ((d ^ (same === 0 ? 48 : sd[end - j]!)) & 15)]!;
      sd[end - j] = d;
    }
    this.sCrc[slot] = c;
    this.same = same;
    return (this.sLen[slot] = same + k);
  }

  /** Any number: its whole text, compared with the slot's old one when that is the reference's. */
  private anyDigits(slot: number, v: number, json: boolean, refLen: number): number {
    const sd = this.sDig;
    const o = slot * DIG;
    const dig = this.dig;
    const len = numberDigits(v, dig, json);
    let same = 0;
    for (let k = 0; k < len; k++) {
      const x = dig[k]!;
      if (same === k && k < refLen && sd[o + k] === x) same++;
      sd[o + k] = x;
    }
    // Any characters (a fraction, an exponent, a sign): the table chain, not the digit tables.
    this.sCrc[slot] = crcBytes(0, dig, 0, len);
    this.same = same;
    return (this.sLen[slot] = len);
  }

  /** Text with no reference (metadata lines, lines that may be cut), as literals. */
  private textLiterals(s: string): void {
    const len = this.utf8(s);
    this.literals(this.textBytes, 0, len);
    this.crc = crcBytes(this.crc, this.textBytes, 0, len);
    this.pos += len;
  }

  /** Encodes `s` as UTF-8 into the text scratch; returns its byte length. */
  private utf8(s: string): number {
    if (this.text.length < 3 * s.length) {
      this.text = Buffer.allocUnsafe(Math.max(3 * s.length, 2 * this.text.length));
      this.textBytes = new Uint8Array(this.text.buffer, this.text.byteOffset, this.text.length);
    }
    return this.text.write(s, 0, 'utf8');
  }

  /** `len` ≥ 3 bytes equal to those `d` back: they join the open match if it has the same distance. */
  private copy(d: number, len: number): void {
    if (this.runDist === d) {
      this.runLen += len;
      return;
    }
    this.closeRun();
    // Distances are differences of Float64Array positions, which V8 may hold as doubles: stored as
    // they are, they would turn this field from small integer to double and deoptimize the encoder.
    this.runDist = d | 0;
    this.runLen = len;
  }

  private closeRun(): void {
    if (this.runLen === 0) return;
    this.tokens.ensure(this.t, 2 + (this.runLen >> 7));
    this.t = this.tokens.match(this.t, this.runLen, this.runDist);
    this.runLen = 0;
    this.runDist = -1;
  }

  private literals(src: Uint8Array, off: number, len: number): void {
    if (this.runLen > 0) this.closeRun();
    const t = this.t;
    // The count is stored before the loop, not after: a first call with a long loop (a batch's
    // metadata) is compiled while running, and a store after the loop, compiled without feedback,
    // would deoptimize on every later call.
    this.t = t + len;
    const tok = this.tokens.ensure(t, len);
    const lf = this.tokens.litFreq;
    for (let k = off, j = t, end = off + len; k < end; k++, j++) {
      const y = src[k]!;
      tok[j] = y;
      lf[y]!++;
    }
  }
}

/** The lowest set bit of `bits` at or above `from`, or `none` if there is none. */
function nextBit(bits: number, from: number, none: number): number {
  const x = from >= 32 ? 0 : bits & (-1 << from);
  return x === 0 ? none : 31 - Math.clz32(x & -x);
}
