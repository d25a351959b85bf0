#!/usr/bin/env node
/**
 * Generates src/tasks/ebcdic-tables.ts: the single-byte EBCDIC code pages of TRANSCODE
 * (tasks.md "TRANSCODE"), which iconv-lite does not have.
 *
 *   node scripts/gen-ebcdic-tables.mjs      writes src/tasks/ebcdic-tables.ts (needs `java` 11+)
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
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'tasks', 'ebcdic-tables.ts');

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
  const dir = mkdtempSync(join(tmpdir(), 'ebcdic-gen-'));
  try {
    writeFileSync(join(dir, 'Dump.java'), JAVA_DUMP);
    const out = execFileSync('java', [join(dir, 'Dump.java'), ...PAGES], { maxBuffer: 64 << 20 }).toString();
    return out.trim().split('\n').map((line) => {
      const [asked, name, aliases, jvm, dec, enc] = line.split('\t');
      if (name !== asked) throw new Error(`${asked}: the JVM calls it ${name}`);
      const table = Array.from({ length: 256 }, (_, b) => parseInt(dec.slice(4 * b, 4 * b + 4), 16));
      const encoded = Uint8Array.from({ length: 0x10000 }, (_, u) => parseInt(enc.slice(2 * u, 2 * u + 2), 16));
      return { name, aliases: aliases.split(' ').filter(Boolean), jvm, table, encoded };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
 * GENERATED by \`node scripts/gen-ebcdic-tables.mjs\`: do not edit. Read from the charsets of
 * ${pages[0].jvm}: every byte's character, and every character
 * Java encodes to another byte than the table's reverse (\`encodeOnly\`).
 */

import type { EbcdicPageData } from './ebcdic.js';

export const EBCDIC_PAGES: readonly EbcdicPageData[] = [
${entries.join('\n')}
];
`;
  writeFileSync(OUT, text);
  console.log(`wrote ${OUT}: ${done.length} pages, from ${pages[0].jvm}`);
}

generate(readJava());
