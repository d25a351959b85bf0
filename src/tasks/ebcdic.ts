/**
 * The EBCDIC code pages of TRANSCODE (tables in ./ebcdic-tables.ts), as codecs that behave as
 * Java's charsets of the same names: every byte decodes to one character; a character without a
 * byte encodes to 0x3F (Java's replacement for these pages, as iconv-lite's single-byte codecs
 * also write 0x3F), once per code point (a surrogate pair is one character).
 */
import { EBCDIC_PAGES } from './ebcdic-tables.js';

/** One page of ./ebcdic-tables.ts. */
export interface EbcdicPageData {
  /** Java's canonical charset name. */
  readonly name: string;
  /** The other names Java accepts for it (matched case-insensitively). */
  readonly aliases: readonly string[];
  /** Byte -> UTF-16 code unit, 256 entries (U+FFFD: no mapping); or `from` and `changes`. */
  readonly table?: readonly number[];
  /** An earlier page of the list that this one equals except for `changes`: [byte, code unit]. */
  readonly from?: string;
  readonly changes?: ReadonlyArray<readonly [number, number]>;
  /** Characters encoded to a byte that decodes to another one: [code unit, byte]. */
  readonly encodeOnly: ReadonlyArray<readonly [number, number]>;
}

/** Both directions between bytes of one charset and text. */
export interface Codec {
  decode(data: Buffer): string;
  encode(text: string): Buffer;
}

const REPLACEMENT = 0x3f;

const pagesByName = new Map<string, EbcdicPageData>();
for (const page of EBCDIC_PAGES) {
  for (const name of [page.name, ...page.aliases]) pagesByName.set(name.toLowerCase(), page);
}
const codecs = new Map<EbcdicPageData, Codec>();

/** Byte -> code unit of a page, following `from` to the page it is written against. */
function decodeTable(page: EbcdicPageData): number[] {
  if (page.table) return [...page.table];
  const base = EBCDIC_PAGES.find((p) => p.name === page.from);
  if (!base || !page.changes) throw new Error(`EBCDIC page ${page.name}: no table and no known base page`);
  const table = decodeTable(base);
  for (const [byte, unit] of page.changes) table[byte] = unit;
  return table;
}

function buildCodec(page: EbcdicPageData): Codec {
  const table = decodeTable(page);
  const decodeBuf = Buffer.alloc(512);
  table.forEach((unit, byte) => decodeBuf.writeUInt16LE(unit, 2 * byte));
  const encodeBuf = new Uint8Array(0x10000).fill(REPLACEMENT);
  // Where two bytes decode to one character (NL and LF both to U+000A), the lower byte wins, as in Java.
  for (let byte = 255; byte >= 0; byte--) if (table[byte] !== 0xfffd) encodeBuf[table[byte] as number] = byte;
  for (const [unit, byte] of page.encodeOnly) encodeBuf[unit] = byte;
  return {
    decode(data) {
      const out = Buffer.allocUnsafe(2 * data.length);
      for (let i = 0; i < data.length; i++) {
        const at = 2 * (data[i] as number);
        out[2 * i] = decodeBuf[at] as number;
        out[2 * i + 1] = decodeBuf[at + 1] as number;
      }
      return out.toString('utf16le');
    },
    encode(text) {
      const out = Buffer.allocUnsafe(text.length);
      let n = 0;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const next = text.charCodeAt(i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) i++;
        }
        out[n++] = encodeBuf[unit] as number; // surrogates have no byte: the replacement
      }
      return out.subarray(0, n);
    },
  };
}

/** The codec of an EBCDIC page by one of Java's names for it (any case), or null. */
export function ebcdicCodec(javaName: string): Codec | null {
  const page = pagesByName.get(javaName.toLowerCase());
  if (!page) return null;
  let codec = codecs.get(page);
  if (!codec) codecs.set(page, (codec = buildCodec(page)));
  return codec;
}

/** Java's canonical names of the EBCDIC pages, in table order. */
export const EBCDIC_NAMES: readonly string[] = EBCDIC_PAGES.map((p) => p.name);
