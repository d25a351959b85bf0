/**
 * Java's Unicode charsets for TRANSCODE (tasks.md "TRANSCODE"), as Java reads and writes them.
 * iconv-lite differs on what a partner sees: it writes "UTF-16" little-endian and "UTF-32" with a
 * byte order mark, drops a leading U+FEFF when it reads UTF-8 or UTF-16LE/BE, and guesses the byte
 * order of "UTF-16" without a mark. Java (checked with OpenJDK 17):
 *
 * - UTF-8, UTF-16BE, UTF-16LE read a leading byte order mark as the character U+FEFF and write
 *   none; UTF-32BE and UTF-32LE drop a leading mark of their own order and write none.
 * - UTF-16 reads either mark (and drops it), big-endian without one; it writes big-endian after
 *   the mark FE FF. UTF-32 reads the same way and writes big-endian without a mark.
 * - x-UTF-16LE-BOM (UnicodeLittle), X-UTF-32BE-BOM and X-UTF-32LE-BOM read either mark, their own
 *   order without one, and write their own mark first. Empty text is written as no bytes at all.
 * - Writing, an unpaired surrogate is `?` in UTF-8 and U+FFFD in the others. Reading UTF-16, an
 *   unpaired low surrogate is U+FFFD, a high surrogate not followed by a low one is U+FFFD for
 *   both units, an odd last byte is U+FFFD; reading UTF-32, a value above U+10FFFF or an
 *   incomplete last unit is U+FFFD. Malformed UTF-8 reads as the WHATWG decoder has it (one
 *   U+FFFD per maximal invalid subpart), where Java sometimes puts fewer (docs/compatibility.md).
 */
import { charsetLookup, type Codec, type NamedCharset } from './charset-family.js';

type Order = 'BE' | 'LE';

interface UnicodeCharset extends NamedCharset {
  readonly unit: 1 | 2 | 4;
  /** Byte order without a mark (and the one written). */
  readonly order: Order;
  /** Reading: a leading mark of either order is dropped and sets the order. */
  readonly detectsMark: boolean;
  /** Reading: a leading mark of `order` is dropped (UTF-32BE/LE). */
  readonly dropsOwnMark: boolean;
  /** Writing: the mark of `order` comes first (non-empty text only). */
  readonly writesMark: boolean;
}

/** Java's canonical names and aliases (Charset.aliases(), OpenJDK 17). */
const CHARSETS: readonly UnicodeCharset[] = [
  { name: 'UTF-8', aliases: ['UTF8', 'unicode-1-1-utf-8'], unit: 1, order: 'BE', detectsMark: false, dropsOwnMark: false, writesMark: false },
  { name: 'UTF-16', aliases: ['UTF_16', 'utf16', 'unicode', 'UnicodeBig'], unit: 2, order: 'BE', detectsMark: true, dropsOwnMark: false, writesMark: true },
  { name: 'UTF-16BE', aliases: ['UTF_16BE', 'X-UTF-16BE', 'ISO-10646-UCS-2', 'UnicodeBigUnmarked'], unit: 2, order: 'BE', detectsMark: false, dropsOwnMark: false, writesMark: false },
  { name: 'UTF-16LE', aliases: ['UTF_16LE', 'X-UTF-16LE', 'UnicodeLittleUnmarked'], unit: 2, order: 'LE', detectsMark: false, dropsOwnMark: false, writesMark: false },
  { name: 'x-UTF-16LE-BOM', aliases: ['UnicodeLittle'], unit: 2, order: 'LE', detectsMark: true, dropsOwnMark: false, writesMark: true },
  { name: 'UTF-32', aliases: ['UTF_32', 'UTF32'], unit: 4, order: 'BE', detectsMark: true, dropsOwnMark: false, writesMark: false },
  { name: 'UTF-32BE', aliases: ['UTF_32BE', 'X-UTF-32BE'], unit: 4, order: 'BE', detectsMark: false, dropsOwnMark: true, writesMark: false },
  { name: 'UTF-32LE', aliases: ['UTF_32LE', 'X-UTF-32LE'], unit: 4, order: 'LE', detectsMark: false, dropsOwnMark: true, writesMark: false },
  { name: 'X-UTF-32BE-BOM', aliases: ['UTF_32BE_BOM', 'UTF-32BE-BOM'], unit: 4, order: 'BE', detectsMark: true, dropsOwnMark: false, writesMark: true },
  { name: 'X-UTF-32LE-BOM', aliases: ['UTF_32LE_BOM', 'UTF-32LE-BOM'], unit: 4, order: 'LE', detectsMark: true, dropsOwnMark: false, writesMark: true },
];

const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The mark of `order` for units of `unit` bytes. */
function mark(unit: 2 | 4, order: Order): Buffer {
  const b = Buffer.alloc(unit);
  if (unit === 2) b.writeUInt16BE(0xfeff);
  else b.writeUInt32BE(0xfeff);
  return order === 'BE' ? b : b.reverse();
}

/** The order a leading mark announces (and its length), or null. */
function markAt(data: Buffer, unit: 2 | 4): Order | null {
  for (const order of ['BE', 'LE'] as const) {
    const m = mark(unit, order);
    if (data.length >= unit && data.subarray(0, unit).equals(m)) return order;
  }
  return null;
}

/** UTF-16 units written one after another into a typed array, then read as a string (a file's worth). */
class UnitWriter {
  private readonly units: Uint16Array;
  private n = 0;

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity);
  }

  push(unit: number): void {
    this.units[this.n++] = unit;
  }

  text(): string {
    return Buffer.from(this.units.buffer, 0, 2 * this.n).toString('utf16le');
  }
}

function decodeUtf16(data: Buffer, order: Order): string {
  const out = new UnitWriter(Math.ceil(data.length / 2));
  const even = data.length - (data.length % 2);
  const read = (i: number): number => (order === 'BE' ? data.readUInt16BE(i) : data.readUInt16LE(i));
  for (let i = 0; i < even; i += 2) {
    const u = read(i);
    if (u >= 0xdc00 && u <= 0xdfff) out.push(0xfffd);
    else if (u >= 0xd800 && u <= 0xdbff) {
      const next = i + 2 < even ? read(i + 2) : -1;
      if (next >= 0xdc00 && next <= 0xdfff) {
        out.push(u);
        out.push(next);
      } else out.push(0xfffd);
      i += 2; // Java takes both units of a broken pair (and the lone last one) as one malformed input
    } else out.push(u);
  }
  if (even < data.length) out.push(0xfffd);
  return out.text();
}

function decodeUtf32(data: Buffer, order: Order): string {
  // At most two units per four bytes, and one U+FFFD for an incomplete last unit.
  const out = new UnitWriter(2 * Math.ceil(data.length / 4));
  const whole = data.length - (data.length % 4);
  for (let i = 0; i < whole; i += 4) {
    const cp = order === 'BE' ? data.readUInt32BE(i) : data.readUInt32LE(i);
    if (cp > 0x10ffff) out.push(0xfffd);
    else if (cp >= 0x10000) {
      out.push(0xd800 + ((cp - 0x10000) >> 10));
      out.push(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else out.push(cp);
  }
  if (whole < data.length) out.push(0xfffd);
  return out.text();
}

function encodeUnits(text: string, unit: 2 | 4, order: Order): Buffer {
  const clean = text.replace(UNPAIRED, '\ufffd');
  if (unit === 2) {
    const le = Buffer.from(clean, 'utf16le');
    return order === 'LE' ? le : le.swap16();
  }
  const out = Buffer.alloc(4 * clean.length);
  let n = 0;
  for (const ch of clean) n = order === 'BE' ? out.writeUInt32BE(ch.codePointAt(0) as number, n) : out.writeUInt32LE(ch.codePointAt(0) as number, n);
  return out.subarray(0, n);
}

function buildCodec(cs: UnicodeCharset): Codec {
  if (cs.unit === 1) {
    return {
      decode: (data) => utf8Decoder.decode(data),
      encode: (text) => Buffer.from(text.replace(UNPAIRED, '?'), 'utf8'),
    };
  }
  const unit = cs.unit;
  return {
    decode(data) {
      let order = cs.order;
      let body = data;
      const found = markAt(data, unit);
      if (found !== null && (cs.detectsMark || (cs.dropsOwnMark && found === cs.order))) {
        order = found;
        body = data.subarray(unit);
      }
      return unit === 2 ? decodeUtf16(body, order) : decodeUtf32(body, order);
    },
    encode(text) {
      const body = encodeUnits(text, unit, cs.order);
      return cs.writesMark && text.length > 0 ? Buffer.concat([mark(unit, cs.order), body]) : body;
    },
  };
}

/** The codec of one of Java's Unicode charsets by any of its names (any case), or null. */
export const unicodeCodec = charsetLookup(CHARSETS, buildCodec);
