/**
 * The JVM's one-or-two-byte East Asian charsets (Shift_JIS, windows-31j, GBK, GB2312,
 * x-mswin-936, Big5, x-windows-950, EUC-KR, x-windows-949), from tables read from Java itself
 * (./java-double-byte-tables.ts), so that TRANSCODE converts them byte for byte as the original.
 * iconv-lite, used before, has Microsoft's tables under the standard names (its EUC-KR is cp949,
 * its GB2312 is GBK, its Shift_JIS is cp932): over the BMP, thousands of characters came out
 * otherwise than in Java (docs/compatibility.md). The tables load on first use.
 *
 * Reading, as Java does (the generator checks this model against Java on every pair of bytes): a
 * lead byte and the next make one character, or U+FFFD for both when the pair has none; for some
 * pairs Java reads the lead alone as U+FFFD and goes on at the next byte (TAKE_ONE); a lead byte
 * at the end reads as U+FFFD; any other byte is its single-byte character (U+FFFD when none).
 * Writing: the lowest single byte, else the lowest pair, of each character, with Java's one-way
 * and refused characters; what the charset lacks is `?` (0x3F), once per code point.
 */
import { inflateRawSync } from 'node:zlib';
import { charsetFamily, codeAt, NO_CODE } from './charset-family.js';
import type { Codec } from './ebcdic.js';
import type { JavaDoubleBytePageData } from './java-double-byte-tables.js';

const REPLACEMENT = 0x3f;
/** In a lead byte's row: the lead alone reads as U+FFFD (set from the tables when they load). */
let takeOne = -1;

interface Tables {
  single: Uint16Array;
  /** Lead byte -> its 256 pairs (TAKE_ONE: the lead alone is U+FFFD); undefined for other bytes. */
  rows: Array<Uint16Array | undefined>;
  /** UTF-16 unit -> byte (< 0x100), pair (first << 8 | second) or NO_CODE. */
  encoding: Uint16Array;
}

function unpack(page: JavaDoubleBytePageData): Tables {
  const raw = inflateRawSync(Buffer.from(page.data, 'base64'));
  const read = (from: number, count: number): Uint16Array => Uint16Array.from({ length: count }, (_, i) => raw.readUInt16LE(from + 2 * i));
  const single = read(0, 256);
  const rows: Array<Uint16Array | undefined> = new Array(256).fill(undefined);
  let at = 512 + 32;
  for (let b = 0; b < 256; b++) {
    if (((raw[512 + (b >> 3)] as number) & (1 << (b & 7))) === 0) continue;
    rows[b] = read(at, 256);
    at += 512;
  }
  const encoding = new Uint16Array(0x10000).fill(NO_CODE);
  // The lowest pair, then the lowest single byte, win where several read as one character.
  for (let b1 = 255; b1 >= 0; b1--) {
    const row = rows[b1];
    if (!row) continue;
    for (let b2 = 255; b2 >= 0; b2--) {
      const unit = row[b2] as number;
      if (unit !== takeOne && unit !== 0xfffd) encoding[unit] = (b1 << 8) | b2;
    }
  }
  for (let b = 255; b >= 0; b--) if (!rows[b] && single[b] !== 0xfffd) encoding[single[b] as number] = b;
  const extra = raw.readUInt32LE(at);
  at += 4;
  for (let i = 0; i < extra; i++, at += 4) encoding[raw.readUInt16LE(at)] = raw.readUInt16LE(at + 2);
  return { single, rows, encoding };
}

function buildCodec(page: JavaDoubleBytePageData): Codec {
  const { single, rows, encoding } = unpack(page);
  return {
    decode(data) {
      const out = new Uint16Array(data.length);
      let n = 0;
      for (let i = 0; i < data.length; i++) {
        const b = data[i] as number;
        const row = rows[b];
        if (!row) {
          out[n++] = single[b] as number;
        } else if (i + 1 === data.length) {
          out[n++] = single[b] as number; // a lead byte alone: U+FFFD in these tables
        } else {
          const unit = row[data[i + 1] as number] as number;
          if (unit === takeOne) {
            out[n++] = 0xfffd;
          } else {
            out[n++] = unit;
            i++;
          }
        }
      }
      return Buffer.from(out.buffer, 0, 2 * n).toString('utf16le');
    },
    encode(text) {
      const out = Buffer.allocUnsafe(2 * text.length);
      let n = 0;
      for (let i = 0; i < text.length; ) {
        const [code, next] = codeAt(text, i, encoding);
        i = next;
        if (code === NO_CODE) out[n++] = REPLACEMENT;
        else if (code < 0x100) out[n++] = code;
        else {
          out[n++] = code >> 8;
          out[n++] = code & 0xff;
        }
      }
      return Buffer.from(out.subarray(0, n));
    },
  };
}

/** The codec of one of these charsets by any of Java's names for it (any case), or null. */
export const javaDoubleByteCodec = charsetFamily(async () => {
  const tables = await import('./java-double-byte-tables.js');
  takeOne = tables.TAKE_ONE;
  return tables.JAVA_DOUBLE_BYTE_PAGES;
}, buildCodec);
