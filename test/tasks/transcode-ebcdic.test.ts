// TRANSCODE with the EBCDIC code pages (tasks.md "TRANSCODE"): known bytes, round trips, Java's
// names, unmappable characters, and a rule's task list as the engine runs it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeTasks } from '../../src/config/rule-xml-columns.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { EBCDIC_NAMES } from '../../src/tasks/ebcdic.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import { runTaskList } from '../../src/tasks/runner.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';
import { transcodeFile } from './transcode-file.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

const REQUIRED = ['IBM037', 'IBM273', 'IBM277', 'IBM278', 'IBM280', 'IBM284', 'IBM285', 'IBM297', 'IBM500', 'IBM1047',
  ...Array.from({ length: 10 }, (_, i) => `IBM0114${i}`)];

const transcode = (input: Buffer | string, from: string, to: string): Promise<Buffer> => transcodeFile(env.home, input, from, to);
const bytes = (...b: number[]): Buffer => Buffer.from(b);

describe('TRANSCODE with EBCDIC code pages', () => {
  it('has every required page, with A = 0xC1 and digits at 0xF0..0xF9 in all of them', async () => {
    expect(EBCDIC_NAMES).toEqual(expect.arrayContaining(REQUIRED));
    for (const page of EBCDIC_NAMES) {
      expect(await transcode('A0123456789', 'UTF-8', page), page).toEqual(bytes(0xc1, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9));
    }
  });

  it('writes the known bytes of each page in both directions', async () => {
    expect(await transcode('Hello, World!', 'UTF-8', 'IBM037')).toEqual(bytes(0xc8, 0x85, 0x93, 0x93, 0x96, 0x6b, 0x40, 0xe6, 0x96, 0x99, 0x93, 0x84, 0x5a));
    // '@' and '[' move between the national pages; the euro pages put € at 0x9F.
    expect(await transcode('@[é€', 'UTF-8', 'IBM037')).toEqual(bytes(0x7c, 0xba, 0x51, 0x3f));
    expect(await transcode('@[é€', 'UTF-8', 'IBM297')).toEqual(bytes(0x44, 0x90, 0xc0, 0x3f));
    expect(await transcode('@[é€', 'UTF-8', 'IBM01147')).toEqual(bytes(0x44, 0x90, 0xc0, 0x9f));
    expect(await transcode('@[é€', 'UTF-8', 'IBM1047')).toEqual(bytes(0x7c, 0xad, 0x51, 0x3f));
    expect(await transcode('ÄÖÜß€', 'UTF-8', 'IBM01141')).toEqual(bytes(0x4a, 0xe0, 0x5a, 0xa1, 0x9f));
    expect(await transcode('ÄÖÜß', 'UTF-8', 'IBM273')).toEqual(bytes(0x4a, 0xe0, 0x5a, 0xa1));
    expect(await transcode('Жж', 'UTF-8', 'x-IBM1025')).toEqual(bytes(0xec, 0xae));
    // Central European, Turkish and Greek pages (byte values as Java 17's IBM870, IBM1026, x-IBM875).
    expect(await transcode('ŁąčŘ', 'UTF-8', 'IBM870')).toEqual(bytes(0xba, 0xa0, 0x47, 0xae));
    expect(await transcode('ĞğİıŞş', 'UTF-8', 'IBM1026')).toEqual(bytes(0x5a, 0xd0, 0x5b, 0x79, 0x7c, 0x6a));
    expect(await transcode('ΑΩαω', 'UTF-8', 'x-IBM875')).toEqual(bytes(0x41, 0x67, 0x8a, 0xcb));
    expect((await transcode(bytes(0xba, 0xa0, 0x47, 0xae), 'Cp870', 'UTF-8')).toString('utf8')).toBe('ŁąčŘ');
    expect((await transcode(bytes(0x41, 0x67, 0x8a, 0xcb), 'cp875', 'UTF-8')).toString('utf8')).toBe('ΑΩαω');
    // Hebrew, Arabic, Thai, Japanese katakana, Baltic and Ukrainian pages (Java 17's bytes).
    expect(await transcode('שלום', 'UTF-8', 'IBM424')).toEqual(bytes(0x69, 0x54, 0x46, 0x55));
    expect(await transcode('سلام', 'UTF-8', 'ebcdic-cp-ar1')).toEqual(bytes(0x77, 0xb1, 0x56, 0xbb));
    expect(await transcode('กข', 'UTF-8', 'IBM-Thai')).toEqual(bytes(0x42, 0x43));
    expect(await transcode('ｱｲ', 'UTF-8', 'Cp290')).toEqual(bytes(0x81, 0x82));
    expect(await transcode('ĄŠ', 'UTF-8', 'x-IBM1112')).toEqual(bytes(0x64, 0x62));
    expect((await transcode(bytes(0x64, 0x67), 'ibm-1123', 'UTF-8')).toString('utf8')).toBe('ЄЇ');
    expect((await transcode(bytes(0x44, 0x90, 0xc0, 0x9f), 'IBM01147', 'UTF-8')).toString('utf8')).toBe('@[é€');
    expect((await transcode(bytes(0x9f), 'IBM297', 'UTF-8')).toString('utf8')).toBe('¤');
    expect((await transcode(bytes(0x4a, 0xe0, 0x5a), 'IBM273', 'ISO-8859-15')).toString('latin1')).toBe('ÄÖÜ');
  });

  it('converts line ends as Java does: LF <-> NL (0x15); LF (0x25) also decodes to LF, except in IBM1047 (U+0085) and the pages where NL is U+0085', async () => {
    expect(await transcode('a\nb', 'UTF-8', 'IBM297')).toEqual(bytes(0x81, 0x15, 0x82));
    expect(await transcode('a\nb\u0085', 'UTF-8', 'IBM1047')).toEqual(bytes(0x81, 0x15, 0x82, 0x25));
    expect((await transcode(bytes(0x81, 0x15, 0x82, 0x25), 'IBM037', 'UTF-8')).toString('utf8')).toBe('a\nb\n');
    expect((await transcode(bytes(0x81, 0x15, 0x82, 0x25), 'IBM1047', 'UTF-8')).toString('utf8')).toBe('a\nb\u0085');
    expect((await transcode(bytes(0x81, 0x15, 0x82, 0x25), 'IBM290', 'UTF-8')).toString('utf8')).toBe('\uff71\u0085\uff72\n');
    expect(await transcode('a\nb', 'UTF-8', 'x-IBM1097')).toEqual(bytes(0x81, 0x25, 0x82));
  });

  it('round-trips every byte of every page through UTF-8; euro pages and page to page', async () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
    for (const page of EBCDIC_NAMES) {
      const text = (await transcode(all, page, 'UTF-8')).toString('utf8');
      expect([...text], page).toHaveLength(256);
      // Every character is written as a byte that decodes to it again. Where two bytes decode to
      // one character, Java writes one of them: LF 0x25 is written as NL 0x15, which also
      // decodes to LF (not in IBM1047, IBM290, x-IBM833, x-IBM1097), and IBM-Thai's tone marks
      // go to their upper copies. A byte the page leaves unassigned (U+FFFD) comes back as 0x3F.
      const back = await transcode(text, 'UTF-8', page);
      expect((await transcode(back, page, 'UTF-8')).toString('utf8'), page).toBe(text.replaceAll('\ufffd', '\u001a'));
      expect(back[0x25], page).toBe(['IBM1047', 'IBM290', 'x-IBM833', 'x-IBM1097'].includes(page) ? 0x25 : 0x15);
      // Only those bytes are not written back as themselves.
      const chars = [...text];
      const moved = [...back.keys()].filter((i) => back[i] !== i);
      expect(moved.filter((i) => chars[i] !== '\ufffd' && chars.indexOf(chars[i] as string) === chars.lastIndexOf(chars[i] as string)), page).toEqual([]);
    }
    // The euro page of a country holds the characters of its page, € in the place of ¤.
    const pairs = [['IBM037', 'IBM01140'], ['IBM273', 'IBM01141'], ['IBM277', 'IBM01142'], ['IBM278', 'IBM01143'], ['IBM280', 'IBM01144'],
      ['IBM284', 'IBM01145'], ['IBM285', 'IBM01146'], ['IBM297', 'IBM01147'], ['IBM500', 'IBM01148'], ['IBM871', 'IBM01149']] as const;
    for (const [page, euro] of pairs) {
      const plain = (await transcode(all, page, 'UTF-16LE')).toString('utf16le');
      const withEuro = (await transcode(all, euro, 'UTF-16LE')).toString('utf16le');
      expect(withEuro, euro).toBe(plain.replace('¤', '€'));
      expect(plain.indexOf('¤'), page).toBe(page === 'IBM277' || page === 'IBM278' ? 0x5a : 0x9f);
    }
    // From one page to another: what the target lacks becomes 0x3F, which decodes as U+001A (SUB).
    const french = await transcode('Fête 42 € 42 ¤ {[@]}\n', 'UTF-8', 'IBM297');
    const back = await transcode(await transcode(french, 'IBM297', 'IBM01147'), 'IBM01147', 'UTF-8');
    expect(back.toString('utf8')).toBe('Fête 42 \u001a 42 \u001a {[@]}\n');
  });

  it("accepts Java's names and aliases in any case, and refuses other names", async () => {
    for (const name of ['IBM297', 'ibm297', 'Cp297', 'IBM-297', 'ebcdic-cp-fr', 'csIBM297', '297']) {
      expect(await transcode('@', 'UTF-8', name), name).toEqual(bytes(0x44));
    }
    for (const name of ['IBM01147', 'CP1147', 'cp01147', 'ccsid01147', 'IBM1147', 'ibm-1147', 'ebcdic-fr-277+euro']) {
      expect(await transcode('€', 'UTF-8', name), name).toEqual(bytes(0x9f));
    }
    for (const name of ['x-IBM1025', 'IBM1025', 'Cp1025']) expect(await transcode('Ж', 'UTF-8', name), name).toEqual(bytes(0xec));
    expect(await transcode('A', 'UTF-8', 'ebcdic-cp-us')).toEqual(bytes(0xc1));
    const file = join(env.home, 'in', 'x');
    writeFileSync(file, 'x');
    const ctx = makeContext(env.home, { currentFile: file });
    for (const name of ['IBM0297', 'x-IBM297', 'IBM1140x', 'EBCDIC']) {
      expect(await runOne('TRANSCODE', `-from UTF-8 -to ${name}`, ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp, message: `TRANSCODE: unsupported charset ${name}` });
    }
  });

  it('writes 0x3F (Java replacement byte) once per character without a byte, a surrogate pair included', async () => {
    expect(await transcode('a€😀\u4e2db', 'UTF-8', 'IBM297')).toEqual(bytes(0x81, 0x3f, 0x3f, 0x3f, 0x82));
    expect(await transcode(Buffer.from('a\udc00b', 'utf16le'), 'UTF-16LE', 'IBM037')).toEqual(bytes(0x81, 0x3f, 0x82));
    // Java reads a high surrogate and the unit after it as one malformed input: 'b' goes too.
    expect(await transcode(Buffer.from('a\ud800b', 'utf16le'), 'UTF-16LE', 'IBM037')).toEqual(bytes(0x81, 0x3f));
    // The other direction: every EBCDIC byte has a character; one missing in the target is '?'.
    expect(await transcode(bytes(0x9f, 0x81), 'IBM01147', 'ISO-8859-1')).toEqual(Buffer.from('?a', 'latin1'));
  });

  it('runs from rule task lists: UTF-8 to IBM01147 (twice, once with unix2dos), then back to UTF-8', async () => {
    const file = join(env.home, 'in', 'invoice.txt');
    writeFileSync(file, 'Total: 12,50 €\nMerci\n');
    const ctx = makeContext(env.home, { currentFile: file });
    const tasks = decodeTasks('<tasks>'
      + '<task><type>TRANSCODE</type><path>-from UTF-8 -to IBM01147 -newfile #OUTPATH#/invoice.ebc</path><delay>0</delay></task>'
      + '<task><type>transcode</type><path>-from UTF-8 -to Cp1147 -extension crlf -unix2dos</path><delay>0</delay></task>'
      + '</tasks>');
    expect(await runTaskList(tasks, ctx, { registry: createTaskRegistry() })).toMatchObject({ status: 'success', warning: false });
    const ebc = join(env.home, 'out', 'invoice.ebc');
    // Bytes as glibc's `iconv -t IBM1147` writes them, but for LF: NL (0x15) as Java writes it.
    expect(readFileSync(ebc).toString('hex')).toBe('e396a381937a40f1f26bf5f0409f15d485998389' + '15');
    // unix2dos works on the output's bytes 0x0D/0x0A (tasks.md): an EBCDIC file has no 0x0A to change.
    expect(readFileSync(`${file}.crlf`)).toEqual(readFileSync(ebc));
    expect(ctx.currentFile).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe('Total: 12,50 €\nMerci\n');
    const back = makeContext(env.home, { currentFile: ebc });
    const list = decodeTasks('<tasks><task><type>TRANSCODE</type><path>-FROM IBM01147 -TO UTF-8 -dos2unix</path><delay>0</delay></task></tasks>');
    expect(await runTaskList(list, back, { registry: createTaskRegistry() })).toMatchObject({ status: 'success', data: `${ebc}.transcode` });
    expect(readFileSync(`${ebc}.transcode`, 'utf8')).toBe('Total: 12,50 €\nMerci\n');
  });
});
