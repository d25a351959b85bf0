/**
 * Every single-byte charset of the JVM other than the EBCDIC pages (ISO-8859-*, windows-125x, the
 * IBM PC and Mac pages, KOI8, TIS-620, ...), from tables read from Java itself
 * (./java-single-byte-tables.ts), so that TRANSCODE reads and writes them byte for byte as the
 * original. iconv-lite, used before, wrote U+FFFD as the last undefined byte of a page instead of
 * 0x3F, and placed a few characters differently (TIS-620 0xA0, windows-1255 0xCA, the Mac pages'
 * Apple logo, x-IBM874, x-IBM856, x-IBM1046, x-IBM1129); it lacks some pages (x-IBM921, x-MacArabic,
 * JIS_X0201, ...). The tables load on first use.
 */
import { inflateRawSync } from 'node:zlib';
import { charsetFamily, type Codec } from './charset-family.js';
import type { JavaSingleBytePageData } from './charsets/java-single-byte-tables.js';
import { singleByteCodec } from './single-byte-codec.js';

function buildCodec(page: JavaSingleBytePageData): Codec {
  const raw = inflateRawSync(Buffer.from(page.data, 'base64'));
  const table = Array.from({ length: 256 }, (_, b) => raw.readUInt16LE(2 * b));
  const count = raw.readUInt32LE(512);
  const encodeOnly = Array.from({ length: count }, (_, i): [number, number] => [raw.readUInt16LE(516 + 4 * i), raw.readUInt16LE(518 + 4 * i)]);
  return singleByteCodec(table, encodeOnly);
}

/** The codec of one of the JVM's single-byte charsets by any of its names (any case), or null. */
export const javaSingleByteCodec = charsetFamily(async () => (await import('./charsets/java-single-byte-tables.js')).JAVA_SINGLE_BYTE_PAGES, buildCodec);
