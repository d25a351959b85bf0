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
import type { Codec } from './ebcdic.js';
import type { JavaSingleBytePageData } from './java-single-byte-tables.js';
import { singleByteCodec } from './single-byte-codec.js';

interface Loaded {
  byName: Map<string, JavaSingleBytePageData>;
  codecs: Map<JavaSingleBytePageData, Codec>;
}
let loading: Promise<Loaded> | undefined;

function load(): Promise<Loaded> {
  loading ??= import('./java-single-byte-tables.js').then(({ JAVA_SINGLE_BYTE_PAGES }) => {
    const byName = new Map<string, JavaSingleBytePageData>();
    for (const page of JAVA_SINGLE_BYTE_PAGES) {
      for (const name of [page.name, ...page.aliases]) byName.set(name.toLowerCase(), page);
    }
    return { byName, codecs: new Map() };
  });
  return loading;
}

function buildCodec(page: JavaSingleBytePageData): Codec {
  const raw = inflateRawSync(Buffer.from(page.data, 'base64'));
  const table = Array.from({ length: 256 }, (_, b) => raw.readUInt16LE(2 * b));
  const count = raw.readUInt32LE(512);
  const encodeOnly = Array.from({ length: count }, (_, i): [number, number] => [raw.readUInt16LE(516 + 4 * i), raw.readUInt16LE(518 + 4 * i)]);
  return singleByteCodec(table, encodeOnly);
}

/** The codec of one of the JVM's single-byte charsets by any of its names (any case), or null. */
export async function javaSingleByteCodec(javaName: string): Promise<Codec | null> {
  const { byName, codecs } = await load();
  const page = byName.get(javaName.toLowerCase());
  if (!page) return null;
  let codec = codecs.get(page);
  if (!codec) codecs.set(page, (codec = buildCodec(page)));
  return codec;
}
