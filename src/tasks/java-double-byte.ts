/**
 * The JVM's East Asian charsets without shifts (Shift_JIS, windows-31j, EUC-JP, GBK, GB2312,
 * x-mswin-936, Big5, x-windows-950, EUC-KR, x-windows-949), from tables read from Java itself
 * (./java-double-byte-tables.ts), so that TRANSCODE converts them byte for byte as the original.
 * iconv-lite, used before, has Microsoft's tables under the standard names (its EUC-KR is cp949,
 * its GB2312 is GBK, its Shift_JIS is cp932): over the BMP, thousands of characters came out
 * otherwise than in Java (docs/compatibility.md). The tables load on first use.
 *
 * Reading, as Java does (the generator checks this model against Java on every pair of bytes): a
 * lead byte and the next make one character, or U+FFFD for both when the pair has none; for some
 * pairs Java reads the lead alone as U+FFFD and goes on at the next byte (TAKE_ONE); a lead byte
 * at the end reads as U+FFFD; after EUC-JP's 0x8F, two more bytes make one character or one U+FFFD
 * goes for one or two bytes; any other byte is its single-byte character (U+FFFD when none).
 * Writing: the lowest single byte, else the lowest pair, of each character, with Java's one-way
 * and refused characters; what the charset lacks is `?` (0x3F), once per code point.
 */
import { inflateRawSync } from 'node:zlib';
import { charsetFamily, codeAt, NO_CODE, type Codec } from './charset-family.js';
import type { JavaDoubleBytePageData } from './charsets/java-double-byte-tables.js';

const REPLACEMENT = 0x3f;

/** The row markers and the three-byte lead, set from the tables when they load. */
let marks = { takeOne: -1, takeTwo: -1, threeByteLead: -1 };

interface Tables {
  single: Uint16Array;
  /** Lead byte -> its 256 pairs (TAKE_ONE: the lead alone is U+FFFD); undefined for other bytes. */
  rows: Array<Uint16Array | undefined>;
  /** EUC-JP: the 65,536 sequences after 0x8F (TAKE_ONE, TAKE_TWO: U+FFFD for one or two bytes). */
  row3: Uint16Array | null;
  /** UTF-16 unit -> byte (< 0x100), pair (< 0x10000), triple, or NO_CODE. */
  encoding: Uint32Array;
}

function unpack(page: JavaDoubleBytePageData): Tables {
  const raw = inflateRawSync(Buffer.from(page.data, 'base64'));
  const read = (from: number, count: number): Uint16Array => Uint16Array.from({ length: count }, (_, i) => raw.readUInt16LE(from + 2 * i));
  const { takeOne, takeTwo, threeByteLead } = marks;
  const single = read(0, 256);
  const rows: Array<Uint16Array | undefined> = new Array(256).fill(undefined);
  let at = 512 + 32;
  for (let b = 0; b < 256; b++) {
    if (((raw[512 + (b >> 3)] as number) & (1 << (b & 7))) === 0) continue;
    rows[b] = read(at, 256);
    at += 512;
  }
  const row3 = raw[at] === 1 ? read(at + 1, 65536) : null;
  at += 1 + (row3 ? 131072 : 0);
  const encoding = new Uint32Array(0x10000).fill(NO_CODE);
  // The lowest triple, pair, then single byte win, in that order, where several read as one character.
  const usable = (unit: number): boolean => unit !== takeOne && unit !== takeTwo && unit !== 0xfffd;
  if (row3) for (let i = 65535; i >= 0; i--) if (usable(row3[i] as number)) encoding[row3[i] as number] = threeByteLead * 0x10000 + i;
  for (let b1 = 255; b1 >= 0; b1--) {
    const row = rows[b1];
    if (!row) continue;
    for (let b2 = 255; b2 >= 0; b2--) if (usable(row[b2] as number)) encoding[row[b2] as number] = (b1 << 8) | b2;
  }
  for (let b = 255; b >= 0; b--) if (!rows[b] && single[b] !== 0xfffd) encoding[single[b] as number] = b;
  const extra = raw.readUInt32LE(at);
  at += 4;
  for (let i = 0; i < extra; i++, at += 6) encoding[raw.readUInt16LE(at)] = raw.readUInt32LE(at + 2);
  return { single, rows, row3, encoding };
}

function buildCodec(page: JavaDoubleBytePageData): Codec {
  const { single, rows, row3, encoding } = unpack(page);
  const { takeOne, takeTwo, threeByteLead } = marks;
  return {
    decode(data) {
      const out = new Uint16Array(data.length);
      let n = 0;
      for (let i = 0; i < data.length; ) {
        const b = data[i] as number;
        const row = rows[b];
        if (!row || i + 1 === data.length) {
          out[n++] = single[b] as number; // a lead byte alone at the end: U+FFFD in these tables
          i += 1;
        } else if (row3 && b === threeByteLead && i + 2 < data.length) {
          const unit = row3[((data[i + 1] as number) << 8) | (data[i + 2] as number)] as number;
          out[n++] = unit === takeOne || unit === takeTwo ? 0xfffd : unit;
          i += unit === takeOne ? 1 : unit === takeTwo ? 2 : 3;
        } else {
          const unit = row[data[i + 1] as number] as number;
          out[n++] = unit === takeOne ? 0xfffd : unit;
          i += unit === takeOne ? 1 : 2;
        }
      }
      return Buffer.from(out.buffer, 0, 2 * n).toString('utf16le');
    },
    encode(text) {
      const out = Buffer.allocUnsafe(3 * text.length);
      let n = 0;
      for (let i = 0; i < text.length; ) {
        const [code, next] = codeAt(text, i, encoding);
        i = next;
        if (code === NO_CODE) {
          out[n++] = REPLACEMENT;
        } else {
          if (code > 0xffff) out[n++] = code >>> 16;
          if (code > 0xff) out[n++] = (code >> 8) & 0xff;
          out[n++] = code & 0xff;
        }
      }
      return Buffer.from(out.subarray(0, n));
    },
  };
}

/** The codec of one of these charsets by any of Java's names for it (any case), or null. */
export const javaDoubleByteCodec = charsetFamily(async () => {
  const tables = await import('./charsets/java-double-byte-tables.js');
  marks = { takeOne: tables.TAKE_ONE, takeTwo: tables.TAKE_TWO, threeByteLead: tables.THREE_BYTE_LEAD };
  return tables.JAVA_DOUBLE_BYTE_PAGES;
}, buildCodec);
