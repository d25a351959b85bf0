#!/usr/bin/env node
/**
 * Generates the charset tables of TRANSCODE (tasks.md "TRANSCODE") that iconv-lite lacks or has
 * otherwise than Java, in src/tasks/charsets/: ebcdic-tables.ts (single-byte EBCDIC pages),
 * ebcdic-dbcs-tables.ts (mixed single/double-byte EBCDIC pages) and
 * java-single-byte-tables.ts (every other single-byte charset of the JVM: ISO-8859-*,
 * windows-125x, the IBM PC and Mac pages, ...) and java-double-byte-tables.ts (the
 * one-or-two-byte East Asian charsets: Shift_JIS, windows-31j, GBK, GB2312, Big5, EUC-KR, ...).
 *
 *   node scripts/gen-charset-tables.mjs      writes the four files (needs `java` 11+)
 *
 * The original is a Java program and TRANSCODE uses Java's charsets, so the tables are read from
 * the JVM itself: a small Java program (below) decodes the bytes 0x00..0xFF of each page and
 * encodes every BMP character, and prints both with the charset's canonical name and aliases.
 * The decoding table is written as is (U+FFFD where a byte has no character); encoding is the
 * reverse of that table (the lowest byte wins when two bytes decode to one character, as NL 0x15
 * and LF 0x25 do) plus `encodeOnly`, every character Java encodes to some other byte (U+0085 to
 * NL in most pages, the Arabic presentation forms of IBM420, ...); anything else encodes to 0x3F,
 * Java's replacement byte for these pages.
 *
 * Until 2026-11-22 the tables came from glibc's iconv with hand-made corrections checked against
 * Java; the 25 pages of then come out the same byte for byte both ways (OpenJDK 17 and Temurin 25
 * agreed on them). Reading Java directly also covers the pages glibc places differently in many
 * positions (IBM290, IBM420, IBM918) or does not have (IBM-Thai, x-IBM833).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { deflateRawSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TASKS = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'tasks', 'charsets');
const OUT = join(TASKS, 'ebcdic-tables.ts');
const OUT_DBCS = join(TASKS, 'ebcdic-dbcs-tables.ts');
const OUT_SINGLE = join(TASKS, 'java-single-byte-tables.ts');
const OUT_DOUBLE = join(TASKS, 'java-double-byte-tables.ts');

/**
 * Java's canonical names of the single-byte EBCDIC pages, in the order written (a page is written
 * as the changes to the closest page before it). The double-byte ones (x-IBM930 ...) are not here.
 */
const PAGES = [
  'IBM037', 'IBM273', 'IBM277', 'IBM278', 'IBM280', 'IBM284', 'IBM285', 'IBM297', 'IBM500', 'IBM871',
  'IBM1047', 'IBM01140', 'IBM01141', 'IBM01142', 'IBM01143', 'IBM01144', 'IBM01145', 'IBM01146',
  'IBM01147', 'IBM01148', 'IBM01149', 'x-IBM1025', 'IBM870', 'IBM1026', 'x-IBM875',
  'IBM290', 'IBM420', 'IBM424', 'IBM918', 'IBM-Thai', 'x-IBM833', 'x-IBM1097', 'x-IBM1112',
  'x-IBM1122', 'x-IBM1123', 'x-IBM1166',
];

/** Above this many differences a page is written whole rather than as changes to another. */
const MAX_CHANGES = 64;

/** Runs a one-file Java program (`java` 11+ runs a source file) with `args`; its standard output lines. */
function runJava(className, source, args) {
  const dir = mkdtempSync(join(tmpdir(), 'charset-gen-'));
  try {
    writeFileSync(join(dir, `${className}.java`), source);
    return execFileSync('java', [join(dir, `${className}.java`), ...args], { maxBuffer: 256 << 20 }).toString().trim().split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const JAVA_DUMP = `
import java.nio.charset.Charset;
import java.util.TreeSet;
public class Dump {
  public static void main(String[] names) {
    for (String n : names) {
      Charset cs = Charset.forName(n);
      byte[] all = new byte[256];
      for (int i = 0; i < 256; i++) all[i] = (byte) i;
      StringBuilder dec = new StringBuilder(), enc = new StringBuilder();
      for (char c : new String(all, cs).toCharArray()) dec.append(String.format("%04x", (int) c));
      for (int c = 0; c < 0x10000; c++) {
        byte[] b = String.valueOf((char) c).getBytes(cs);
        enc.append(String.format("%02x", b.length == 1 ? b[0] & 0xff : 0x3f));
      }
      String aliases = String.join(" ", new TreeSet<>(cs.aliases())).toLowerCase();
      System.out.println(n + "\\t" + cs.name() + "\\t" + aliases + "\\t" + System.getProperty("java.vm.name") + " " + System.getProperty("java.version") + "\\t" + dec + "\\t" + enc);
    }
  }
}
`;

/** Every page as the JVM has it: name, aliases, decoding table and encoding of each BMP unit. */
function readJava() {
  return runJava('Dump', JAVA_DUMP, PAGES).map((line) => {
    const [asked, name, aliases, jvm, dec, enc] = line.split('\t');
    if (name !== asked) throw new Error(`${asked}: the JVM calls it ${name}`);
    const table = Array.from({ length: 256 }, (_, b) => parseInt(dec.slice(4 * b, 4 * b + 4), 16));
    const encoded = Uint8Array.from({ length: 0x10000 }, (_, u) => parseInt(enc.slice(2 * u, 2 * u + 2), 16));
    return { name, aliases: aliases.split(' ').filter(Boolean), jvm, table, encoded };
  });
}

/** What src/tasks/ebcdic.ts builds from the table alone: the lowest byte wins, else 0x3F. */
function reverse(table) {
  const enc = new Uint8Array(0x10000).fill(0x3f);
  for (let b = 255; b >= 0; b--) if (table[b] !== 0xfffd) enc[table[b]] = b;
  return enc;
}

/** The characters Java encodes otherwise than the reverse of the table (surrogates have no byte). */
function encodeOnly(page) {
  const ours = reverse(page.table);
  const pairs = [];
  for (let u = 0; u < 0x10000; u++) {
    if (u >= 0xd800 && u <= 0xdfff) continue;
    if (page.encoded[u] !== ours[u]) pairs.push([u, page.encoded[u]]);
  }
  return pairs;
}

const hex = (n, w) => `0x${n.toString(16).padStart(w, '0')}`;
const glyph = (u) => (u > 0x20 && u !== 0x7f && !(u >= 0x80 && u <= 0xa0) && u !== 0xad && u !== 0xfffd && !(u >= 0xd800 && u <= 0xf8ff) ? ` // ${String.fromCharCode(u)}` : '');

function generate(pages) {
  const done = [];
  const entries = [];
  for (const page of pages) {
    let best;
    for (const other of done) {
      const changes = page.table.flatMap((u, b) => (u === other.table[b] ? [] : [[b, u]]));
      if (!best || changes.length < best.changes.length) best = { from: other.name, changes };
    }
    const lines = [`  {`, `    name: '${page.name}',`, `    aliases: [${page.aliases.map((a) => `'${a}'`).join(', ')}],`];
    if (best && best.changes.length <= MAX_CHANGES) {
      lines.push(`    from: '${best.from}',`, `    changes: [`, ...best.changes.map(([b, u]) => `      [${hex(b, 2)}, ${hex(u, 4)}],${glyph(u)}`), `    ],`);
    } else {
      lines.push(`    table: [`);
      for (let row = 0; row < 256; row += 16) lines.push(`      ${page.table.slice(row, row + 16).map((u) => hex(u, 4)).join(', ')}, // ${hex(row, 2)}`);
      lines.push(`    ],`);
    }
    const extra = encodeOnly(page);
    if (extra.length <= 4) lines.push(`    encodeOnly: [${extra.map(([u, b]) => `[${hex(u, 4)}, ${hex(b, 2)}]`).join(', ')}],`);
    else lines.push(`    encodeOnly: [`, ...extra.map(([u, b]) => `      [${hex(u, 4)}, ${hex(b, 2)}],${glyph(u)}`), `    ],`);
    lines.push(`  },`);
    entries.push(lines.join('\n'));
    done.push(page);
  }
  const text = `/**
 * EBCDIC code pages for TRANSCODE (tasks.md "TRANSCODE"), read by ./ebcdic.ts.
 *
 * GENERATED by \`node scripts/gen-charset-tables.mjs\`: do not edit. Read from the charsets of
 * ${pages[0].jvm}: every byte's character, and every character
 * Java encodes to another byte than the table's reverse (\`encodeOnly\`).
 */

import type { EbcdicPageData } from '../ebcdic.js';

export const EBCDIC_PAGES: readonly EbcdicPageData[] = [
${entries.join('\n')}
];
`;
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${done.length} pages, from ${pages[0].jvm}`);
}

/**
 * The mixed pages: single bytes, and after SO (0x0E) pairs of bytes until SI (0x0F); Java's names.
 * x-IBM930/x-IBM939 Japanese, x-IBM933/x-IBM1364 Korean, x-IBM935 Simplified and x-IBM937
 * Traditional Chinese.
 */
const DBCS_PAGES = ['x-IBM930', 'x-IBM939', 'x-IBM933', 'x-IBM935', 'x-IBM937', 'x-IBM1364'];

/** Both bytes of a pair lie in 0x40..0xFE; the dump checks that no other pair decodes. */
const PAIR_LOW = 0x40;
const PAIR_HIGH = 0xfe;

const JAVA_DBCS_DUMP = `
import java.nio.charset.*;
import java.util.TreeSet;
public class DumpDbcs {
  static String decode(Charset cs, int... b) {
    byte[] bytes = new byte[b.length];
    for (int i = 0; i < b.length; i++) bytes[i] = (byte) b[i];
    String s = new String(bytes, cs);
    return s.length() == 1 ? String.format("%04x", (int) s.charAt(0)) : "fffd";
  }
  public static void main(String[] names) {
    for (String n : names) {
      Charset cs = Charset.forName(n);
      CharsetEncoder enc = cs.newEncoder();
      StringBuilder sb = new StringBuilder(), db = new StringBuilder(), out = new StringBuilder(), stray = new StringBuilder();
      for (int b = 0; b < 256; b++) sb.append(b == 0x0e || b == 0x0f ? "fffd" : decode(cs, b));
      for (int b1 = 0; b1 < 256; b1++) {
        if (b1 == 0x0e || b1 == 0x0f) continue;
        for (int b2 = 0; b2 < 256; b2++) {
          String u = decode(cs, 0x0e, b1, b2, 0x0f);
          boolean inside = b1 >= ${PAIR_LOW} && b1 <= ${PAIR_HIGH} && b2 >= ${PAIR_LOW} && b2 <= ${PAIR_HIGH};
          if (inside) db.append(u);
          else if (!u.equals("fffd")) stray.append(String.format("%02x%02x ", b1, b2));
        }
      }
      for (int c = 0; c < 0x10000; c++) {
        if (c >= 0xd800 && c <= 0xdfff) { out.append("----"); continue; }
        if (!enc.canEncode((char) c)) { out.append("----"); continue; }
        byte[] b = String.valueOf((char) c).getBytes(cs);
        if (b.length == 1) out.append(String.format("00%02x", b[0] & 0xff));
        else if (b.length == 4 && b[0] == 0x0e && b[3] == 0x0f) out.append(String.format("%02x%02x", b[1] & 0xff, b[2] & 0xff));
        else throw new IllegalStateException(n + ": U+" + Integer.toHexString(c) + " encodes to " + b.length + " bytes");
      }
      String aliases = String.join(" ", new TreeSet<>(cs.aliases())).toLowerCase();
      byte[] r = enc.replacement();
      System.out.println(n + "\\t" + cs.name() + "\\t" + aliases + "\\t" + String.format("%02x", r[0] & 0xff) + r.length + "\\t" + stray + "\\t" + sb + "\\t" + db + "\\t" + out);
    }
  }
}
`;

/** The mixed pages as the JVM has them. */
function readJavaDbcs() {
  return runJava('DumpDbcs', JAVA_DBCS_DUMP, DBCS_PAGES).map((line) => {
    const [asked, name, aliases, replacement, stray, sb, db, enc] = line.split('\t');
    if (name !== asked) throw new Error(`${asked}: the JVM calls it ${name}`);
    if (replacement !== '6f1') throw new Error(`${name}: replacement ${replacement}, not the single byte 0x6F`);
    if (stray.trim() !== '') throw new Error(`${name}: pairs outside 0x40..0xFE decode: ${stray}`);
    const units = (text) => Array.from({ length: text.length / 4 }, (_, i) => parseInt(text.slice(4 * i, 4 * i + 4), 16));
    const encoded = Array.from({ length: 0x10000 }, (_, u) => (enc.slice(4 * u, 4 * u + 4) === '----' ? -1 : parseInt(enc.slice(4 * u, 4 * u + 4), 16)));
    return { name, aliases: aliases.split(' ').filter(Boolean), sb: units(sb), db: units(db), encoded };
  });
}

/** What src/tasks/ebcdic-dbcs.ts builds from the tables alone: the lowest single byte, else the lowest pair. */
function reverseDbcs(page) {
  const code = new Int32Array(0x10000).fill(-1);
  const width = PAIR_HIGH - PAIR_LOW + 1;
  for (let i = page.db.length - 1; i >= 0; i--) {
    if (page.db[i] !== 0xfffd) code[page.db[i]] = ((PAIR_LOW + Math.floor(i / width)) << 8) | (PAIR_LOW + (i % width));
  }
  for (let b = 255; b >= 0; b--) if (page.sb[b] !== 0xfffd) code[page.sb[b]] = b;
  return code;
}

/**
 * One page as bytes: 256 single-byte units, the pair table (0x40..0xFE squared), then the
 * characters Java encodes otherwise than the tables' reverse: count, then (unit, code) with code
 * 0xFFFF for a character Java cannot encode; all little-endian u16 (count u32). Deflated, base64.
 */
function packDbcs(page) {
  const ours = reverseDbcs(page);
  const extra = [];
  for (let u = 0; u < 0x10000; u++) {
    if (u >= 0xd800 && u <= 0xdfff) continue;
    if (page.encoded[u] !== ours[u]) extra.push([u, page.encoded[u] === -1 ? 0xffff : page.encoded[u]]);
  }
  const buf = Buffer.alloc(2 * (256 + page.db.length) + 4 + 4 * extra.length);
  let at = 0;
  for (const u of [...page.sb, ...page.db]) at = buf.writeUInt16LE(u, at);
  at = buf.writeUInt32LE(extra.length, at);
  for (const [u, c] of extra) at = buf.writeUInt16LE(c, buf.writeUInt16LE(u, at));
  return { data: deflateRawSync(buf, { level: 9 }).toString('base64'), extra: extra.length };
}

function generateDbcs(pages) {
  const entries = pages.map((page) => {
    const { data, extra } = packDbcs(page);
    console.log(`  ${page.name}: ${page.db.filter((u) => u !== 0xfffd).length} pairs, ${extra} one-way or refused characters, ${data.length} base64 characters`);
    const chunks = data.match(/.{1,96}/g).map((c) => `      '${c}'`).join(' +\n');
    return `  {\n    name: '${page.name}',\n    aliases: [${page.aliases.map((a) => `'${a}'`).join(', ')}],\n    data:\n${chunks},\n  },`;
  });
  const text = `/**
 * The mixed single/double-byte EBCDIC code pages for TRANSCODE (tasks.md "TRANSCODE"), read by
 * ./ebcdic-dbcs.ts.
 *
 * GENERATED by \`node scripts/gen-charset-tables.mjs\`: do not edit. Read from the JVM's charsets:
 * \`data\` is, deflated and in base64, the single-byte table (256 UTF-16 units), the pair table
 * (first and second byte 0x${PAIR_LOW.toString(16)}..0x${PAIR_HIGH.toString(16)}), then the characters Java encodes otherwise than
 * the tables' reverse (u32 count, then u16 character and u16 code, 0xFFFF for none), little-endian.
 */

export interface EbcdicDbcsPageData {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly data: string;
}

/** First and last byte value of either byte of a pair. */
export const PAIR_LOW = 0x${PAIR_LOW.toString(16)};
export const PAIR_HIGH = 0x${PAIR_HIGH.toString(16)};

export const EBCDIC_DBCS_PAGES: readonly EbcdicDbcsPageData[] = [
${entries.join('\n')}
];
`;
  writeFileSync(OUT_DBCS, text);
  console.log(`wrote ${OUT_DBCS}: ${pages.length} pages`);
}

const JAVA_SINGLE_DUMP = `
import java.nio.charset.*;
import java.util.*;
public class DumpSingle {
  public static void main(String[] skip) {
    Set<String> skipped = new HashSet<>(Arrays.asList(skip));
    for (Charset cs : Charset.availableCharsets().values()) {
      if (skipped.contains(cs.name()) || !cs.canEncode() || cs.newEncoder().maxBytesPerChar() != 1.0f) continue;
      byte[] all = new byte[256];
      for (int i = 0; i < 256; i++) all[i] = (byte) i;
      String text = new String(all, cs);
      if (text.length() != 256) continue;
      StringBuilder dec = new StringBuilder(), enc = new StringBuilder();
      for (char c : text.toCharArray()) dec.append(String.format("%04x", (int) c));
      for (int c = 0; c < 0x10000; c++) {
        byte[] b = String.valueOf((char) c).getBytes(cs);
        enc.append(String.format("%02x", b.length == 1 ? b[0] & 0xff : 0x3f));
      }
      String aliases = String.join(" ", new TreeSet<>(cs.aliases())).toLowerCase();
      System.out.println(cs.name() + "\\t" + aliases + "\\t" + dec + "\\t" + enc);
    }
  }
}
`;

/** Every single-byte charset of the JVM but the EBCDIC pages above. */
function readJavaSingle() {
  return runJava('DumpSingle', JAVA_SINGLE_DUMP, PAGES).map((line) => {
    const [name, aliases, dec, enc] = line.split('\t');
    const table = Array.from({ length: 256 }, (_, b) => parseInt(dec.slice(4 * b, 4 * b + 4), 16));
    const encoded = Uint8Array.from({ length: 0x10000 }, (_, u) => parseInt(enc.slice(2 * u, 2 * u + 2), 16));
    return { name, aliases: aliases.split(' ').filter(Boolean), table, encoded };
  });
}

/** 256 u16 units, u32 count, then (u16 unit, u16 byte) pairs; little-endian, deflated, base64. */
function packSingle(page) {
  const extra = encodeOnly(page);
  if (extra.length > 4096) throw new Error(`${page.name}: ${extra.length} one-way characters (a replacement other than 0x3F?)`);
  const buf = Buffer.alloc(512 + 4 + 4 * extra.length);
  let at = 0;
  for (const u of page.table) at = buf.writeUInt16LE(u, at);
  at = buf.writeUInt32LE(extra.length, at);
  for (const [u, b] of extra) at = buf.writeUInt16LE(b, buf.writeUInt16LE(u, at));
  return deflateRawSync(buf, { level: 9 }).toString('base64');
}

function generateSingle(pages) {
  const entries = pages.map((page) => {
    const chunks = packSingle(page).match(/.{1,96}/g).map((c) => `'${c}'`).join(' +\n      ');
    return `  {\n    name: '${page.name}',\n    aliases: [${page.aliases.map((a) => `'${a}'`).join(', ')}],\n    data: ${chunks},\n  },`;
  });
  const text = `/**
 * The single-byte charsets of the JVM other than the EBCDIC pages (ISO-8859-*, windows-125x, the
 * IBM PC and Mac pages, ...) for TRANSCODE (tasks.md "TRANSCODE"), read by ./java-single-byte.ts.
 *
 * GENERATED by \`node scripts/gen-charset-tables.mjs\`: do not edit. Read from the JVM's charsets:
 * \`data\` is, deflated and in base64, the decoding table (256 UTF-16 units, U+FFFD for none), then
 * the characters Java encodes otherwise than the table's reverse (u32 count, then u16 character
 * and u16 byte), little-endian.
 */

export interface JavaSingleBytePageData {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly data: string;
}

export const JAVA_SINGLE_BYTE_PAGES: readonly JavaSingleBytePageData[] = [
${entries.join('\n')}
];
`;
  writeFileSync(OUT_SINGLE, text);
  console.log(`wrote ${OUT_SINGLE}: ${pages.length} charsets`);
}

/**
 * The East Asian charsets of one, two or (EUC-JP, after 0x8F) three bytes per character without
 * shifts, in Java's names. (GB18030 has four-byte sequences and Big5-HKSCS characters outside the
 * BMP: they stay iconv-lite's.)
 */
const DOUBLE_PAGES = ['Shift_JIS', 'windows-31j', 'EUC-JP', 'GBK', 'GB2312', 'x-mswin-936', 'Big5', 'x-windows-950', 'EUC-KR', 'x-windows-949'];

/** The byte that starts a three-byte sequence in the charsets that have them (EUC-JP's SS3). */
const THREE_BYTE_LEAD = 0x8f;

const JAVA_DOUBLE_DUMP = `
import java.nio.charset.*;
import java.util.TreeSet;
public class DumpDouble {
  static String units(Charset cs, byte... b) {
    StringBuilder out = new StringBuilder();
    for (char c : new String(b, cs).toCharArray()) out.append(String.format("%04x", (int) c));
    return out.toString();
  }
  public static void main(String[] names) {
    for (String n : names) {
      Charset cs = Charset.forName(n);
      CharsetEncoder enc = cs.newEncoder();
      float max = enc.maxBytesPerChar();
      if ((max != 2.0f && max != 3.0f) || enc.replacement().length != 1 || enc.replacement()[0] != 0x3f) throw new IllegalStateException(n);
      StringBuilder single = new StringBuilder(), pairs = new StringBuilder(), triples = new StringBuilder(), out = new StringBuilder();
      for (int b = 0; b < 256; b++) single.append(units(cs, (byte) b)).append(',');
      for (int b1 = 0; b1 < 256; b1++) for (int b2 = 0; b2 < 256; b2++) pairs.append(units(cs, (byte) b1, (byte) b2)).append(',');
      if (max == 3.0f) for (int b2 = 0; b2 < 256; b2++) for (int b3 = 0; b3 < 256; b3++) triples.append(units(cs, (byte) ${THREE_BYTE_LEAD}, (byte) b2, (byte) b3)).append(',');
      for (int c = 0; c < 0x10000; c++) {
        if (c >= 0xd800 && c <= 0xdfff || !enc.canEncode((char) c)) { out.append("-,"); continue; }
        for (byte x : String.valueOf((char) c).getBytes(cs)) out.append(String.format("%02x", x & 0xff));
        out.append(',');
      }
      String aliases = String.join(" ", new TreeSet<>(cs.aliases())).toLowerCase();
      System.out.println(n + "\\t" + cs.name() + "\\t" + aliases + "\\t" + single + "\\t" + pairs + "\\t" + triples + "\\t" + out);
    }
  }
}
`;

/** In a row: no character; Java reads the first byte alone as U+FFFD and goes on at the next one. */
const TAKE_ONE = 0xffff;
/** In the three-byte row: Java reads the first two bytes as one U+FFFD and goes on at the third. */
const TAKE_TWO = 0xfffe;
/** No code in the encoding table (never a pair: no charset here has FF FF). */
const NO_CODE = 0xffff;

/**
 * One charset as Java has it, checked against the model ./java-double-byte.ts decodes with: a
 * lead byte and the next make one character (or U+FFFD for both), or the lead alone is U+FFFD and
 * reading goes on at the next byte (TAKE_ONE); after EUC-JP's 0x8F, two more bytes make one
 * character, or one U+FFFD goes for one or two bytes (TAKE_ONE, TAKE_TWO), and with one byte left
 * its pair row applies; any other byte is its single-byte character.
 */
function readJavaDouble() {
  return runJava('DumpDouble', JAVA_DOUBLE_DUMP, DOUBLE_PAGES).map((line) => {
    const [asked, name, aliases, singleText, pairText, tripleText, encText] = line.split('\t');
    if (name !== asked) throw new Error(`${asked}: the JVM calls it ${name}`);
    const unitsOf = (hex) => Array.from({ length: hex.length / 4 }, (_, i) => parseInt(hex.slice(4 * i, 4 * i + 4), 16));
    const single = singleText.split(',').slice(0, 256).map((h) => {
      const u = unitsOf(h);
      if (u.length !== 1) throw new Error(`${name}: a single byte reads as ${u.length} units`);
      return u[0];
    });
    const pairs = pairText.split(',').slice(0, 65536).map(unitsOf);
    const triples = tripleText === '' ? null : tripleText.split(',').slice(0, 65536).map(unitsOf);
    // The row markers are noncharacters; no sequence may read as one.
    if ([single, ...pairs, ...(triples ?? [])].some((u) => (Array.isArray(u) ? u : [u]).some((x) => x === TAKE_ONE || x === TAKE_TWO))) throw new Error(`${name}: a sequence reads as U+FFFE or U+FFFF`);
    const lead = Array.from({ length: 256 }, (_, b1) => pairs.slice(256 * b1, 256 * b1 + 256).some((u) => u.length === 1) || (triples !== null && b1 === THREE_BYTE_LEAD));
    const rows = new Map();
    for (let b1 = 0; b1 < 256; b1++) {
      if (!lead[b1]) continue;
      const row = [];
      for (let b2 = 0; b2 < 256; b2++) {
        const u = pairs[256 * b1 + b2];
        if (u.length === 1) row.push(u[0]);
        else if (u.length === 2 && u[0] === 0xfffd) row.push(TAKE_ONE);
        else throw new Error(`${name}: ${b1.toString(16)} ${b2.toString(16)} reads as ${u.map((x) => x.toString(16)).join(' ')}`);
      }
      rows.set(b1, row);
    }
    // A decoder of the model, to compare with Java on every sequence.
    const decodeModel = (bytes, row3) => {
      const out = [];
      for (let i = 0; i < bytes.length; ) {
        const b = bytes[i];
        if (!lead[b] || i + 1 === bytes.length) {
          out.push(single[b]);
          i += 1;
        } else if (row3 && b === THREE_BYTE_LEAD && i + 2 < bytes.length) {
          const v = row3[256 * bytes[i + 1] + bytes[i + 2]];
          out.push(v === TAKE_ONE || v === TAKE_TWO ? 0xfffd : v);
          i += v === TAKE_ONE ? 1 : v === TAKE_TWO ? 2 : 3;
        } else {
          const v = rows.get(b)[bytes[i + 1]];
          out.push(v === TAKE_ONE ? 0xfffd : v);
          i += v === TAKE_ONE ? 1 : 2;
        }
      }
      return out.join(' ');
    };
    let row3 = null;
    if (triples !== null) {
      // Each three-byte sequence: one character (all three taken), or one U+FFFD for the first
      // byte or the first two, the rest read again: whichever of these Java's reading matches.
      row3 = triples.map((u, i) => {
        const rest = [i >> 8, i & 0xff];
        if (u.length === 1) return u[0];
        if (u[0] === 0xfffd && decodeModel(rest, null) === u.slice(1).join(' ')) return TAKE_ONE;
        if (u[0] === 0xfffd && decodeModel(rest.slice(1), null) === u.slice(1).join(' ')) return TAKE_TWO;
        throw new Error(`${name}: 8f ${rest.map((b) => b.toString(16)).join(' ')} reads as ${u.map((x) => x.toString(16)).join(' ')}`);
      });
    }
    for (let b1 = 0; b1 < 256; b1++) {
      for (let b2 = 0; b2 < 256; b2++) {
        const java = pairs[256 * b1 + b2].join(' ');
        if (decodeModel([b1, b2], row3) !== java) throw new Error(`${name}: the model reads ${b1.toString(16)} ${b2.toString(16)} as ${decodeModel([b1, b2], row3)}, Java as ${java}`);
      }
    }
    if (row3) {
      for (let i = 0; i < 65536; i++) {
        const java = triples[i].join(' ');
        const got = decodeModel([THREE_BYTE_LEAD, i >> 8, i & 0xff], row3);
        if (got !== java) throw new Error(`${name}: the model reads 8f ${(i >> 8).toString(16)} ${(i & 0xff).toString(16)} as ${got}, Java as ${java}`);
      }
    }
    const encoded = encText.split(',').slice(0, 0x10000).map((h) => (h === '-' ? -1 : parseInt(h, 16)));
    return { name, aliases: aliases.split(' ').filter(Boolean), single, lead, rows, row3, encoded };
  });
}

/** The reverse of the tables: the lowest single byte, else the lowest pair, else the lowest triple. */
function reverseDouble(page) {
  const code = new Int32Array(0x10000).fill(-1);
  if (page.row3) {
    for (let i = 65535; i >= 0; i--) {
      const u = page.row3[i];
      if (u !== TAKE_ONE && u !== TAKE_TWO && u !== 0xfffd) code[u] = (THREE_BYTE_LEAD << 16) | i;
    }
  }
  for (const b1 of [...page.rows.keys()].sort((x, y) => y - x)) {
    const row = page.rows.get(b1);
    for (let b2 = 255; b2 >= 0; b2--) if (row[b2] !== TAKE_ONE && row[b2] !== 0xfffd) code[row[b2]] = (b1 << 8) | b2;
  }
  for (let b = 255; b >= 0; b--) if (!page.lead[b] && page.single[b] !== 0xfffd) code[page.single[b]] = b;
  return code;
}

/**
 * 256 u16 single-byte units, 32 bytes of lead flags, then for each lead byte in order 256 u16
 * (TAKE_ONE where the lead is read alone), a u8 flag and, if set, the 65,536 u16 of 0x8F's
 * three-byte row (TAKE_ONE, TAKE_TWO), then u32 count and (u16 character, u32 code, NO_CODE for
 * none) of what Java encodes otherwise than the reverse; little-endian, deflated, base64.
 */
function packDouble(page) {
  const ours = reverseDouble(page);
  const extra = [];
  for (let u = 0; u < 0x10000; u++) {
    if (u >= 0xd800 && u <= 0xdfff) continue;
    if (page.encoded[u] === NO_CODE) throw new Error(`${page.name}: a character encodes to FF FF`);
    if (page.encoded[u] !== ours[u]) extra.push([u, page.encoded[u] === -1 ? NO_CODE : page.encoded[u]]);
  }
  const leads = [...page.rows.keys()].sort((x, y) => x - y);
  const buf = Buffer.alloc(512 + 32 + 512 * leads.length + 1 + (page.row3 ? 131072 : 0) + 4 + 6 * extra.length);
  let at = 0;
  for (const u of page.single) at = buf.writeUInt16LE(u, at);
  for (let b = 0; b < 256; b++) if (page.lead[b]) buf[at + (b >> 3)] |= 1 << (b & 7);
  at += 32;
  for (const b1 of leads) for (const u of page.rows.get(b1)) at = buf.writeUInt16LE(u, at);
  at = buf.writeUInt8(page.row3 ? 1 : 0, at);
  if (page.row3) for (const u of page.row3) at = buf.writeUInt16LE(u, at);
  at = buf.writeUInt32LE(extra.length, at);
  for (const [u, c] of extra) at = buf.writeUInt32LE(c, buf.writeUInt16LE(u, at));
  return { data: deflateRawSync(buf, { level: 9 }).toString('base64'), leads: leads.length, extra: extra.length };
}

function generateDouble(pages) {
  const entries = pages.map((page) => {
    const { data, leads, extra } = packDouble(page);
    console.log(`  ${page.name}: ${leads} lead bytes, ${extra} one-way or refused characters, ${data.length} base64 characters`);
    const chunks = data.match(/.{1,96}/g).map((c) => `      '${c}'`).join(' +\n');
    return `  {\n    name: '${page.name}',\n    aliases: [${page.aliases.map((a) => `'${a}'`).join(', ')}],\n    data:\n${chunks},\n  },`;
  });
  const text = `/**
 * The East Asian charsets of the JVM without shifts (Shift_JIS, windows-31j, EUC-JP, GBK, GB2312,
 * Big5, EUC-KR, ...) for TRANSCODE (tasks.md "TRANSCODE"), read by ./java-double-byte.ts.
 *
 * GENERATED by \`node scripts/gen-charset-tables.mjs\`: do not edit. Read from the JVM's charsets:
 * \`data\` is, deflated and in base64, the single-byte table (256 UTF-16 units), the lead bytes (a
 * 256-bit set), for each lead byte in order its 256 pairs (TAKE_ONE: the lead is read alone as
 * U+FFFD), a byte 1 if the three-byte row of 0x${THREE_BYTE_LEAD.toString(16).toUpperCase()} follows (65,536 units; TAKE_ONE,
 * TAKE_TWO), then the characters Java encodes otherwise than the tables' reverse (u32 count, then
 * u16 character and u32 code, 0x${NO_CODE.toString(16).toUpperCase()} for none), little-endian.
 */

export interface JavaDoubleBytePageData {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly data: string;
}

/** In a row: no character; the first byte alone reads as U+FFFD. */
export const TAKE_ONE = 0x${TAKE_ONE.toString(16)};
/** In the three-byte row: the first two bytes read as one U+FFFD. */
export const TAKE_TWO = 0x${TAKE_TWO.toString(16)};
/** The first byte of a three-byte sequence. */
export const THREE_BYTE_LEAD = 0x${THREE_BYTE_LEAD.toString(16)};

export const JAVA_DOUBLE_BYTE_PAGES: readonly JavaDoubleBytePageData[] = [
${entries.join('\n')}
];
`;
  writeFileSync(OUT_DOUBLE, text);
  console.log(`wrote ${OUT_DOUBLE}: ${pages.length} charsets`);
}

generate(readJava());
generateDbcs(readJavaDbcs());
generateSingle(readJavaSingle());
generateDouble(readJavaDouble());
