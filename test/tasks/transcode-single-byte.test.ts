// TRANSCODE with the JVM's single-byte charsets other than EBCDIC (tasks.md "TRANSCODE"): tables
// read from Java, so bytes and replacements are Java's (each expected value was printed by Java 17).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codecFor } from '../../src/tasks/transcode-task.js';
import { makeHome } from './helpers.js';
import { transcodeFile } from './transcode-file.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

describe("TRANSCODE with the JVM's single-byte charsets", () => {
  it('writes U+FFFD (a malformed input read earlier) as ?, as Java does, not as an unused byte of the page', async () => {
    const out = await transcodeFile(env.home, Buffer.from('61ff62', 'hex'), 'UTF-8', 'windows-1252');
    expect(out.toString('hex')).toBe('613f62');
    for (const name of ['ISO-8859-7', 'windows-1250', 'IBM857', 'US-ASCII', 'x-MacGreek']) {
      expect((await codecFor(name))!.encode('a\ufffdb').toString('hex'), name).toBe('613f62');
    }
  });

  it('places the characters where Java does, and has the pages iconv-lite lacks', async () => {
    const encode = async (name: string, text: string): Promise<string> => (await codecFor(name))!.encode(text).toString('hex');
    const decode = async (name: string, hex: string): Promise<string> => (await codecFor(name))!.decode(Buffer.from(hex, 'hex'));
    expect(await encode('x-MacRoman', '€Ω')).toBe('dbbd');
    expect(await decode('TIS-620', 'a0a1')).toBe('\u00a0\u0e01');
    expect(await decode('windows-1255', 'ca')).toBe('\ufffd');
    expect(await encode('x-IBM921', 'ąČ')).toBe('e0c8');
    expect(await encode('JIS_X0201', 'ｱA')).toBe('b141');
    expect(await encode('x-MacArabic', 'ب')).toBe('c8');
    // Java's aliases, any case.
    expect(await encode('cp1252', '€')).toBe('80');
    expect(await encode('LATIN1', 'é')).toBe('e9');
    expect(await encode('ibm-437', 'é')).toBe('82');
  });

  it('round-trips every byte of every page that has a character for it', async () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, b) => b));
    for (const name of ['ISO-8859-1', 'ISO-8859-15', 'windows-1252', 'IBM850', 'KOI8-R', 'x-MacRoman']) {
      const codec = (await codecFor(name))!;
      const text = codec.decode(all);
      const back = codec.encode(text);
      for (let b = 0; b < 256; b++) if (text[b] !== '\ufffd') expect(codec.decode(back.subarray(b, b + 1)), `${name} ${b}`).toBe(text[b]);
    }
  });
});
