/**
 * The single-byte EBCDIC code pages of TRANSCODE (tables in ./ebcdic-tables.ts), as codecs that
 * behave as Java's charsets of the same names (./single-byte-codec.ts).
 */
import { EBCDIC_PAGES } from './charsets/ebcdic-tables.js';
import { charsetLookup, type Codec } from './charset-family.js';
import { singleByteCodec } from './single-byte-codec.js';

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
  return singleByteCodec(decodeTable(page), page.encodeOnly);
}

/** The codec of an EBCDIC page by one of Java's names for it (any case), or null. */
export const ebcdicCodec = charsetLookup(EBCDIC_PAGES, buildCodec);

/** Java's canonical names of the EBCDIC pages, in table order. */
export const EBCDIC_NAMES: readonly string[] = EBCDIC_PAGES.map((p) => p.name);
