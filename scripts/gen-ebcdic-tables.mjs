#!/usr/bin/env node
/**
 * Generates src/tasks/ebcdic-tables.ts: the EBCDIC single-byte code pages of TRANSCODE
 * (tasks.md "TRANSCODE"), which iconv-lite does not have.
 *
 *   node scripts/gen-ebcdic-tables.mjs               writes src/tasks/ebcdic-tables.ts
 *   node scripts/gen-ebcdic-tables.mjs --check-java  then compares every page, both directions and
 *                                                    the names, with the JVM's charsets (`java` 11+)
 *
 * How the tables are made: for each page, glibc's iconv decodes the bytes 0x00..0xFF
 * (`iconv -f <page> -t UTF-16BE`, the gconv modules of Debian's libc6; byte by byte when a byte has
 * no mapping, which then decodes to U+FFFD). The original is a Java program, and Java's charsets
 * differ from glibc's on a few bytes: JAVA_FIXES below puts Java's values in (checked with
 * --check-java against OpenJDK 17 and Temurin 25, which agree). Encoding is the reverse of the
 * table (the lowest byte wins when two bytes decode to one character) plus ENCODE_ONLY; anything
 * else encodes to 0x3F, Java's replacement byte for these charsets.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'tasks', 'ebcdic-tables.ts');

/** Java canonical name, glibc name, and the aliases Java's Charset.aliases() gives (OpenJDK 17). */
const PAGES = [
  ['IBM037', 'IBM037', '037 cp037 cpibm37 cs-ebcdic-cp-ca cs-ebcdic-cp-nl cs-ebcdic-cp-us cs-ebcdic-cp-wt csibm037 ebcdic-cp-ca ebcdic-cp-nl ebcdic-cp-us ebcdic-cp-wt ibm-037 ibm-37 ibm037'],
  ['IBM273', 'IBM273', '273 cp273 ibm-273 ibm273'],
  ['IBM277', 'IBM277', '277 cp277 ibm-277 ibm277'],
  ['IBM278', 'IBM278', '278 cp278 csibm278 ebcdic-cp-se ebcdic-sv ibm-278 ibm278'],
  ['IBM280', 'IBM280', '280 cp280 ibm-280 ibm280'],
  ['IBM284', 'IBM284', '284 cp284 cpibm284 csibm284 ibm-284 ibm284'],
  ['IBM285', 'IBM285', '285 cp285 cpibm285 csibm285 ebcdic-cp-gb ebcdic-gb ibm-285 ibm285'],
  ['IBM297', 'IBM297', '297 cp297 cpibm297 csibm297 ebcdic-cp-fr ibm-297 ibm297'],
  ['IBM500', 'IBM500', '500 cp500 csibm500 ebcdic-cp-bh ebcdic-cp-ch ibm-500 ibm500'],
  ['IBM871', 'IBM871', '871 cp871 csibm871 ebcdic-cp-is ibm-871 ibm871'],
  ['IBM1047', 'IBM1047', '1047 cp1047 ibm-1047'],
  ['IBM01140', 'IBM1140', '1140 ccsid01140 cp01140 cp1140 ebcdic-us-037+euro ibm-1140 ibm1140'],
  ['IBM01141', 'IBM1141', '1141 ccsid01141 cp01141 cp1141 ebcdic-de-273+euro ibm-1141 ibm1141'],
  ['IBM01142', 'IBM1142', '1142 ccsid01142 cp01142 cp1142 ebcdic-dk-277+euro ebcdic-no-277+euro ibm-1142 ibm1142'],
  ['IBM01143', 'IBM1143', '1143 ccsid01143 cp01143 cp1143 ebcdic-fi-278+euro ebcdic-se-278+euro ibm-1143 ibm1143'],
  ['IBM01144', 'IBM1144', '1144 ccsid01144 cp01144 cp1144 ebcdic-it-280+euro ibm-1144 ibm1144'],
  ['IBM01145', 'IBM1145', '1145 ccsid01145 cp01145 cp1145 ebcdic-es-284+euro ibm-1145 ibm1145'],
  ['IBM01146', 'IBM1146', '1146 ccsid01146 cp01146 cp1146 ebcdic-gb-285+euro ibm-1146 ibm1146'],
  ['IBM01147', 'IBM1147', '1147 ccsid01147 cp01147 cp1147 ebcdic-fr-277+euro ibm-1147 ibm1147'],
  ['IBM01148', 'IBM1148', '1148 ccsid01148 cp01148 cp1148 ebcdic-international-500+euro ibm-1148 ibm1148'],
  ['IBM01149', 'IBM1149', '1149 ccsid01149 cp01149 cp1149 ebcdic-s-871+euro ibm-1149 ibm1149'],
  ['x-IBM1025', 'IBM1025', '1025 cp1025 ibm-1025 ibm1025'],
  ['IBM870', 'IBM870', '870 cp870 csibm870 ebcdic-cp-roece ebcdic-cp-yu ibm-870 ibm870'],
  ['IBM1026', 'IBM1026', '1026 cp1026 ibm-1026 ibm1026'],
  ['x-IBM875', 'IBM875', '875 cp875 ibm-875 ibm875'],
].map(([name, glibc, aliases]) => ({ name, glibc, aliases: aliases.split(' ') }));

/**
 * Where Java decodes differently from glibc. Java decodes NL (0x15) to U+000A like LF (0x25);
 * glibc to U+0085. IBM1047 swaps them in Java (0x15 = U+000A, 0x25 = U+0085, the z/OS UNIX
 * convention). The others are glyphs the two libraries place differently (glibc's own IBM1143,
 * IBM1146 and IBM1149 agree with Java there).
 */
const NL_IS_LF = { 0x15: 0x000a };
const JAVA_FIXES = {
  IBM1047: { 0x15: 0x000a, 0x25: 0x0085 },
  IBM278: { 0x71: 0x005c, 0xe0: 0x00c9 },
  IBM285: { 0xa1: 0x00af },
  IBM871: { 0x4a: 0x00de, 0xc0: 0x00fe },
  IBM870: { 0xb0: 0x02d9 },
  IBM1026: { 0x9d: 0x00b8, 0xbc: 0x00af },
  IBM875: { 0x6a: 0x007c, 0x74: 0x00a0, 0xdd: 0x0387 },
};
/** Java encodes U+0085 to NL (0x15), which it decodes to U+000A: a one-way mapping. */
const ENCODE_ONLY = (name) => (name === 'IBM1047' ? [] : [[0x0085, 0x15]]);

/** Above this many differences a page is written whole rather than as changes to another. */
const MAX_CHANGES = 64;

function glibcTable(page) {
  const iconv = (bytes) => execFileSync('iconv', ['-f', page.glibc, '-t', 'UTF-16BE'], { input: Buffer.from(bytes), stdio: ['pipe', 'pipe', 'ignore'] });
  const units = (buf) => Array.from({ length: buf.length / 2 }, (_, i) => buf.readUInt16BE(2 * i));
  const all = Array.from({ length: 256 }, (_, b) => b);
  try {
    const table = units(iconv(all));
    if (table.length === 256) return table;
  } catch {
    // some byte has no mapping: one byte at a time below
  }
  return all.map((b) => {
    try {
      const u = units(iconv([b]));
      return u.length === 1 ? u[0] : 0xfffd;
    } catch {
      return 0xfffd;
    }
  });
}

function javaTable(page) {
  const table = glibcTable(page);
  for (const [b, u] of Object.entries({ ...NL_IS_LF, ...JAVA_FIXES[page.glibc] })) table[Number(b)] = u;
  return table;
}

/** The encoder the codec builds (src/tasks/ebcdic.ts): lowest byte wins, then the one-way pairs. */
function encoder(table, encodeOnly) {
  const enc = new Uint8Array(0x10000).fill(0x3f);
  for (let b = 255; b >= 0; b--) if (table[b] !== 0xfffd) enc[table[b]] = b;
  for (const [u, b] of encodeOnly) enc[u] = b;
  return enc;
}

const hex = (n, w) => `0x${n.toString(16).padStart(w, '0')}`;
const glyph = (u) => (u > 0x20 && u !== 0x7f && !(u >= 0x80 && u <= 0xa0) && u !== 0xad && u !== 0xfffd ? ` // ${String.fromCharCode(u)}` : '');

function generate() {
  const glibcVersion = execFileSync('getconf', ['GNU_LIBC_VERSION']).toString().trim();
  const done = [];
  const entries = [];
  for (const page of PAGES) {
    const table = javaTable(page);
    const encodeOnly = ENCODE_ONLY(page.glibc);
    let best;
    for (const other of done) {
      const changes = table.flatMap((u, b) => (u === other.table[b] ? [] : [[b, u]]));
      if (!best || changes.length < best.changes.length) best = { from: other.name, changes };
    }
    const lines = [`  {`, `    name: '${page.name}',`, `    aliases: [${page.aliases.map((a) => `'${a}'`).join(', ')}],`];
    if (best && best.changes.length <= MAX_CHANGES) {
      lines.push(`    from: '${best.from}',`, `    changes: [`, ...best.changes.map(([b, u]) => `      [${hex(b, 2)}, ${hex(u, 4)}],${glyph(u)}`), `    ],`);
    } else {
      lines.push(`    table: [`);
      for (let row = 0; row < 256; row += 16) lines.push(`      ${table.slice(row, row + 16).map((u) => hex(u, 4)).join(', ')}, // ${hex(row, 2)}`);
      lines.push(`    ],`);
    }
    lines.push(`    encodeOnly: [${encodeOnly.map(([u, b]) => `[${hex(u, 4)}, ${hex(b, 2)}]`).join(', ')}],`, `  },`);
    entries.push(lines.join('\n'));
    done.push({ name: page.name, table, encodeOnly, aliases: page.aliases });
  }
  const text = `/**
 * EBCDIC code pages for TRANSCODE (tasks.md "TRANSCODE"), read by ./ebcdic.ts.
 *
 * GENERATED by \`node scripts/gen-ebcdic-tables.mjs\`: do not edit. Made from ${glibcVersion}'s iconv
 * (\`iconv -f <page> -t UTF-16BE\` over the bytes 0x00..0xFF), with the script's corrections that
 * make every page decode and encode as Java's charset of that name does (NL 0x15 decodes to
 * U+000A, and a few glyph positions).
 */

import type { EbcdicPageData } from './ebcdic.js';

export const EBCDIC_PAGES: readonly EbcdicPageData[] = [
${entries.join('\n')}
];
`;
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${done.length} pages`);
  return done;
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
        enc.append(String.format("%02x", b.length == 1 ? b[0] & 0xff : 0x100));
      }
      String aliases = String.join(" ", new TreeSet<>(cs.aliases())).toLowerCase();
      System.out.println(n + "\\t" + cs.name() + "\\t" + aliases + "\\t" + dec + "\\t" + enc);
    }
  }
}
`;

function checkJava(pages) {
  const dir = mkdtempSync(join(tmpdir(), 'ebcdic-check-'));
  let bad = 0;
  try {
    writeFileSync(join(dir, 'Dump.java'), JAVA_DUMP);
    const out = execFileSync('java', [join(dir, 'Dump.java'), ...pages.map((p) => p.name)], { maxBuffer: 64 << 20 }).toString();
    for (const line of out.trim().split('\n')) {
      const [name, canonical, aliases, dec, enc] = line.split('\t');
      const page = pages.find((p) => p.name === name);
      const problems = [];
      if (canonical !== page.name) problems.push(`canonical name ${canonical}`);
      if (aliases !== [...page.aliases].sort().join(' ')) problems.push(`aliases ${aliases}`);
      for (let b = 0; b < 256; b++) {
        const u = parseInt(dec.slice(4 * b, 4 * b + 4), 16);
        if (u !== page.table[b]) problems.push(`byte ${hex(b, 2)} decodes to ${hex(u, 4)}, here ${hex(page.table[b], 4)}`);
      }
      const ours = encoder(page.table, page.encodeOnly);
      for (let u = 0; u < 0x10000; u++) {
        if (u >= 0xd800 && u <= 0xdfff) continue;
        const b = parseInt(enc.slice(2 * u, 2 * u + 2), 16);
        if (b !== ours[u]) problems.push(`${hex(u, 4)} encodes to ${hex(b, 2)}, here ${hex(ours[u], 2)}`);
      }
      bad += problems.length;
      console.log(`${name}: ${problems.length === 0 ? 'same as Java' : problems.slice(0, 10).join('; ')}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (bad > 0) process.exitCode = 1;
}

const pages = generate();
if (process.argv.includes('--check-java')) checkJava(pages);
