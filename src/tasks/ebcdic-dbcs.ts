/**
 * The mixed single/double-byte EBCDIC code pages of TRANSCODE (x-IBM930, x-IBM939, ...; tables in
 * ./ebcdic-dbcs-tables.ts, read from Java's charsets), as codecs that behave as Java's: text starts
 * in single-byte mode; SO (0x0E) switches to pairs of bytes, SI (0x0F) back.
 *
 * Decoding, as Java does it, byte for byte (malformed input included):
 * - single-byte mode: SO switches, a stray SI is U+FFFD, any other byte its character;
 * - pair mode: SI switches back, a stray SO is U+FFFD; otherwise two bytes make one character
 *   (U+FFFD when the pair has none, even when its second byte is SO or SI), and a lone last byte
 *   is U+FFFD.
 * Encoding: a character of the single-byte table is written in single-byte mode, one of the pair
 * table in pair mode, with SO/SI written where the mode changes; a character Java cannot encode
 * (a surrogate pair counting as one) is written as 0x6F in whichever mode is current, as Java
 * does; SI ends the text if it ends in pair mode.
 *
 * The tables (250 KB of source) are loaded on the first use of one of these pages, not with the
 * task registry: they cost every process start 7 ms otherwise.
 */
import { inflateRawSync } from 'node:zlib';
import { charsetFamily, codeAt, NO_CODE, type Codec } from './charset-family.js';
import type { EbcdicDbcsPageData } from './charsets/ebcdic-dbcs-tables.js';

const SO = 0x0e;
const SI = 0x0f;
const REPLACEMENT = 0x6f;
/** Where pair bytes may lie, set from the tables when they load. */
let range: PairRange = { low: 0, high: -1, width: 0 };

/** Where a pair's bytes may lie (both in PAIR_LOW..PAIR_HIGH) and how the table is laid out. */
interface PairRange {
  low: number;
  high: number;
  width: number;
}

interface Tables {
  single: Uint16Array;
  pairs: Uint16Array;
  /** UTF-16 unit -> byte (< 0x100), pair (first byte << 8 | second) or NO_CODE. */
  encoding: Uint16Array;
}

function unpack(page: EbcdicDbcsPageData): Tables {
  const raw = inflateRawSync(Buffer.from(page.data, 'base64'));
  const units = (from: number, count: number): Uint16Array => {
    const out = new Uint16Array(count);
    for (let i = 0; i < count; i++) out[i] = raw.readUInt16LE(from + 2 * i);
    return out;
  };
  const single = units(0, 256);
  const pairs = units(512, range.width * range.width);
  const encoding = new Uint16Array(0x10000).fill(NO_CODE);
  // The lowest pair, then the lowest single byte, win where several decode to one character.
  for (let i = pairs.length - 1; i >= 0; i--) {
    const unit = pairs[i] as number;
    if (unit !== 0xfffd) encoding[unit] = ((range.low + Math.floor(i / range.width)) << 8) | (range.low + (i % range.width));
  }
  for (let b = 255; b >= 0; b--) if (single[b] !== 0xfffd) encoding[single[b] as number] = b;
  let at = 512 + 2 * pairs.length;
  const extra = raw.readUInt32LE(at);
  at += 4;
  for (let i = 0; i < extra; i++, at += 4) encoding[raw.readUInt16LE(at)] = raw.readUInt16LE(at + 2);
  return { single, pairs, encoding };
}

function pairUnit(pairs: Uint16Array, first: number, second: number): number {
  if (first < range.low || first > range.high || second < range.low || second > range.high) return 0xfffd;
  return pairs[(first - range.low) * range.width + (second - range.low)] as number;
}

function buildCodec(page: EbcdicDbcsPageData): Codec {
  const { single, pairs, encoding } = unpack(page);
  return {
    decode(data) {
      const out = new Uint16Array(data.length);
      let n = 0;
      let inPairs = false;
      for (let i = 0; i < data.length; i++) {
        const b = data[i] as number;
        if (!inPairs) {
          if (b === SO) inPairs = true;
          else out[n++] = b === SI ? 0xfffd : (single[b] as number);
        } else if (b === SI) {
          inPairs = false;
        } else if (b === SO || i + 1 === data.length) {
          out[n++] = 0xfffd;
        } else {
          out[n++] = pairUnit(pairs, b, data[++i] as number);
        }
      }
      return Buffer.from(out.buffer, 0, 2 * n).toString('utf16le');
    },
    encode(text) {
      // At most SO + pair + SI per character, 4 bytes.
      const out = Buffer.allocUnsafe(4 * text.length + 1);
      let n = 0;
      let inPairs = false;
      for (let i = 0; i < text.length; ) {
        const [code, next] = codeAt(text, i, encoding);
        i = next;
        if (code === NO_CODE) {
          out[n++] = REPLACEMENT;
        } else if (code < 0x100) {
          if (inPairs) out[n++] = SI;
          inPairs = false;
          out[n++] = code;
        } else {
          if (!inPairs) out[n++] = SO;
          inPairs = true;
          out[n++] = code >> 8;
          out[n++] = code & 0xff;
        }
      }
      if (inPairs) out[n++] = SI;
      return Buffer.from(out.subarray(0, n));
    },
  };
}

/** The codec of a mixed EBCDIC page by one of Java's names for it (any case), or null. */
export const ebcdicDbcsCodec = charsetFamily(async () => {
  const tables = await import('./charsets/ebcdic-dbcs-tables.js');
  range = { low: tables.PAIR_LOW, high: tables.PAIR_HIGH, width: tables.PAIR_HIGH - tables.PAIR_LOW + 1 };
  return tables.EBCDIC_DBCS_PAGES;
}, buildCodec);

/** Java's canonical names of the mixed pages, in table order. */
export async function ebcdicDbcsNames(): Promise<string[]> {
  return (await import('./charsets/ebcdic-dbcs-tables.js')).EBCDIC_DBCS_PAGES.map((p) => p.name);
}
