import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync, inflateRawSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { gzipLines } from "./line-gzip.js";
import { FH, HH, rng } from "../line-gzip.test-util.js";

/** POSIX read lines as the tracer formats them: sequential 4 KiB offsets, µs timestamps. */
function posixLines(n: number, seed = 1, firstId = 1): string {
  const r = rng(seed);
  let ts = 1760934170173819;
  let out = "";
  for (let i = 0; i < n; i++) {
    const file = Math.floor(r() * 64);
    const dur = 1 + Math.floor(r() * r() * 400);
    ts += dur + Math.floor(r() * 30);
    out +=
      `{"id":${
        firstId + i
      },"name":"read","cat":"POSIX","pid":123,"tid":123,"ts":${ts},"dur":${dur},"ph":"X",` +
      `"args":{"hhash":"${HH}","level":1,"p_idx":-1,"fhash":"${
        FH[file]
      }","count":4096,"offset":${(i >> 6) * 4096},"ret":4096}}\n`;
  }
  return out;
}

function fnLines(n: number, seed = 2): string {
  const r = rng(seed);
  let ts = 1760934170173819;
  let out = "";
  for (let i = 0; i < n; i++) {
    const dur = Math.floor(r() * 50);
    ts += dur + 1;
    out += `{"id":${i + 1},"name":"step${
      i % 3
    }","cat":"app","pid":77,"tid":77,"ts":${ts},"dur":${dur},"ph":"X","args":{"hhash":"${HH}","level":${
      1 + (i % 2)
    },"p_idx":${i % 5}}}\n`;
  }
  return out;
}

function metaLines(): string {
  return (
    `{"name":"HH","cat":"dftracer","pid":123,"tid":123,"ph":"M","args":{"hhash":"${HH}","name":"vm","value":"${HH}"}}\n` +
    `{"name":"process_name","cat":"dftracer","pid":123,"tid":123,"ph":"M","args":{"hhash":"${HH}","name":"app (123)","value":"process_name"}}\n` +
    FH.map(
      (h, k) =>
        `{"name":"FH","cat":"dftracer","pid":123,"tid":123,"ph":"M","args":{"hhash":"${HH}","name":"/data/file-${k}.bin","value":"${h}"}}\n`
    ).join("")
  );
}

function roundTrip(text: string): Buffer {
  const gz = gzipLines(text);
  expect(gunzipSync(gz).toString("utf8")).toBe(text);
  return gz;
}

describe("gzipLines", () => {
  it("round-trips POSIX read events and is one gzip member with the right header and trailer", () => {
    const text = posixLines(5000);
    const gz = roundTrip(text);
    expect([...gz.subarray(0, 4)]).toEqual([0x1f, 0x8b, 8, 0]);
    expect(gz.readUInt32LE(gz.length - 4)).toBe(Buffer.byteLength(text));
    // The raw DEFLATE stream alone inflates to the text: the header is exactly 10 bytes, no extras.
    expect(inflateRawSync(gz.subarray(10, gz.length - 8)).toString()).toBe(
      text
    );
  });

  it("is not much larger than zlib level 1 on trace text (line model, not the zlib fallback)", () => {
    const text = metaLines() + posixLines(5000) + fnLines(2000);
    const ours = roundTrip(text).length;
    const z1 = gzipSync(text, { level: 1 }).length;
    expect(ours).toBeLessThan(z1 * 1.25);
    expect(ours).toBeLessThan(text.length / 8);
  });

  it("round-trips metadata lines, function events and mixed kinds interleaved", () => {
    roundTrip(metaLines());
    roundTrip(fnLines(3000));
    const a = posixLines(500).split("\n");
    const b = fnLines(500).split("\n");
    const m = metaLines().split("\n");
    let mixed = "";
    for (let k = 0; k < 500; k++)
      mixed += `${a[k]}\n${b[k]}\n${k < m.length - 1 ? `${m[k]}\n` : ""}`;
    roundTrip(mixed);
  });

  it("round-trips non-ASCII text, escapes, lone-surrogate escapes and emoji", () => {
    let text = "";
    for (let k = 0; k < 300; k++) {
      text += `{"id":${k},"name":"écrire","cat":"日本語","pid":1,"tid":1,"ts":${
        1760934170173819 + k * 7
      },"dur":${
        k % 13
      },"ph":"X","args":{"path":"/tmp/🚀/${k}\\"q\\"\\n","bad":"\\ud800x","ok":"\\u00e9${"é".repeat(
        k % 5
      )}"}}\n`;
    }
    roundTrip(text);
  });

  it("takes the UTF-8 bytes of the text as well as the text itself", () => {
    const text = '{"id":1,"name":"é€😀"}\n{"id":2,"name":"é€😀"}\n';
    const bytes = Buffer.from(text, "utf8");
    expect(gzipLines(bytes).equals(gzipLines(text))).toBe(true);
    expect(gunzipSync(gzipLines(bytes)).toString("utf8")).toBe(text);
  });

  it("tells apart bytes that compare equal as doubles (+0 and -0) and equal bytes that do not (NaN)", () => {
    // Equal runs are compared 8 bytes at a time as doubles: +0 and -0 are equal doubles with
    // different bytes, and NaN bytes are equal but never equal doubles.
    const plusZero = Buffer.alloc(8);
    const minusZero = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0x80]);
    const nan = Buffer.alloc(8, 0xff);
    const lines: Buffer[] = [];
    for (let i = 0; i < 400; i++) {
      const odd = [plusZero, minusZero, plusZero, nan][i % 4]!;
      // the run after the id starts at its `,`: 40 bytes on, the 8-byte compares meet these bytes whole
      lines.push(Buffer.concat([Buffer.from(`{"id":${i},"name":"same-shape-for-allxxxxxx","v":"`), odd, odd, Buffer.from('","w":"constant tail of the line"}\n')]));
    }
    const bytes = Buffer.concat(lines);
    expect(gunzipSync(gzipLines(bytes)).equals(bytes)).toBe(true);
  });

  it("handles empty input, one line, a line without a newline, and blank lines", () => {
    expect(gunzipSync(gzipLines("")).length).toBe(0);
    roundTrip('{"a":1}\n');
    roundTrip('{"a":1}');
    roundTrip('\n\n\n{"a":1}\n\n');
    roundTrip("x");
  });

  it("round-trips lines longer than the 32 KiB window and matches longer than 258 bytes", () => {
    const long = `{"id":1,"name":"big","cat":"x","args":{"s":"${"abcdefghij".repeat(
      5000
    )}"}}\n`;
    roundTrip(long + long.replace('"id":1', '"id":2') + posixLines(100));
    // Long identical lines: matches of thousands of bytes split into 258-byte pieces.
    const wide = `{"id":1,"v":"${"x".repeat(3000)}"}\n`;
    roundTrip(wide.repeat(20));
    roundTrip(`${"a".repeat(259)}\n${"a".repeat(260)}\n${"a".repeat(261)}\n`);
  });

  it("falls back to zlib for text that is not line-shaped and still round-trips", () => {
    const r = rng(3);
    let text = "";
    for (let k = 0; k < 20000; k++)
      text += String.fromCharCode(Math.floor(r() * 0xd7ff) + 1);
    const gz = roundTrip(text);
    expect(gz.length).toBeLessThanOrEqual(
      gzipSync(text, { level: 1 }).length + 64
    );
    let bin = "";
    for (let k = 0; k < 50000; k++)
      bin += String.fromCharCode(Math.floor(r() * 128));
    roundTrip(bin);
  });

  it("round-trips under many random line mixes (differing lengths, quotes, delimiters)", () => {
    const r = rng(4);
    const alphabet = '{}[]",:0123456789abcdef\\ x';
    for (let trial = 0; trial < 40; trial++) {
      const base = Array.from({ length: 1 + Math.floor(r() * 6) }, () => {
        let s = "";
        const len = Math.floor(r() * 120);
        for (let k = 0; k < len; k++)
          s += alphabet[Math.floor(r() * alphabet.length)];
        return s;
      });
      let text = "";
      for (let k = 0; k < 300; k++) {
        let line = base[Math.floor(r() * base.length)]!;
        // Mutate a few positions, as changing numbers and hashes do.
        for (let m = 0; m < 3; m++) {
          const at = Math.floor(r() * (line.length + 1));
          line =
            line.slice(0, at) +
            alphabet[Math.floor(r() * alphabet.length)] +
            line.slice(at + Math.floor(r() * 2));
        }
        text += `${line}\n`;
      }
      roundTrip(text);
    }
  });

  describe("concatenated members", () => {
    const dir = mkdtempSync(join(tmpdir(), "line-gzip-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("read back as the concatenated texts with zlib and with the gunzip CLI", () => {
      const texts = [
        metaLines(),
        posixLines(2000, 5),
        fnLines(1000, 6),
        "",
        posixLines(3000, 7, 2001),
        "tail without newline",
      ];
      const file = Buffer.concat(texts.map((t) => gzipLines(t)));
      expect(gunzipSync(file).toString()).toBe(texts.join(""));
      const path = join(dir, "trace.pfw.gz");
      writeFileSync(path, file);
      expect(
        execFileSync("gunzip", ["-c", path], { maxBuffer: 1 << 26 }).toString()
      ).toBe(texts.join(""));
      // gzip -t checks every member's CRC and length.
      execFileSync("gzip", ["-t", path]);
    });
  });
});
