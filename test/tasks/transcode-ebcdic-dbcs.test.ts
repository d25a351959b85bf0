// TRANSCODE with the mixed single/double-byte EBCDIC pages (tasks.md "TRANSCODE"): the bytes Java
// 17 writes and reads for each page, malformed input decoded as Java decodes it, and a round trip
// of every pair of every page.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ebcdicDbcsCodec, ebcdicDbcsNames } from '../../src/tasks/ebcdic-dbcs.js';
import { PAIR_HIGH, PAIR_LOW } from '../../src/tasks/charsets/ebcdic-dbcs-tables.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';
import { transcodeFile } from './transcode-file.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

const transcode = (input: Buffer | string, from: string, to: string): Promise<Buffer> => transcodeFile(env.home, input, from, to);
const bytes = (...b: number[]): Buffer => Buffer.from(b);
const decode = async (page: string, data: Buffer): Promise<string> => (await ebcdicDbcsCodec(page))!.decode(data);

describe('TRANSCODE with the mixed EBCDIC pages', () => {
  it('writes what Java 17 writes, SO/SI around each run of pairs, and reads it back', async () => {
    const cases: Array<[string, string, number[]]> = [
      ['x-IBM930', 'ABC漢字ｱｲ123', [0xc1, 0xc2, 0xc3, 0x0e, 0x4f, 0x58, 0x48, 0xf2, 0x0f, 0x81, 0x82, 0xf1, 0xf2, 0xf3]],
      ['x-IBM939', 'abc日本語', [0x81, 0x82, 0x83, 0x0e, 0x45, 0x62, 0x45, 0x66, 0x48, 0xe7, 0x0f]],
      ['x-IBM933', '한국어 abc', [0x0e, 0xd0, 0x65, 0x8a, 0x82, 0xb4, 0xe1, 0x0f, 0x40, 0x81, 0x82, 0x83]],
      ['x-IBM935', '中文 abc', [0x0e, 0x5b, 0xcf, 0x57, 0xc3, 0x0f, 0x40, 0x81, 0x82, 0x83]],
      ['x-IBM937', '漢字 abc', [0x0e, 0x5e, 0xc6, 0x4d, 0xf2, 0x0f, 0x40, 0x81, 0x82, 0x83]],
      ['x-IBM1364', '한국', [0x0e, 0xd0, 0x65, 0x8a, 0x82, 0x0f]],
      ['x-IBM939', '日本\n', [0x0e, 0x45, 0x62, 0x45, 0x66, 0x0f, 0x15]],
    ];
    for (const [page, text, expected] of cases) {
      expect(await transcode(text, 'UTF-8', page), page).toEqual(Buffer.from(expected));
      expect((await transcode(Buffer.from(expected), page, 'UTF-8')).toString('utf8'), page).toBe(text);
    }
    // Java's names and aliases, in any case.
    for (const name of ['Cp930', 'IBM-930', 'ibm930', '930']) expect(await transcode('漢', 'UTF-8', name), name).toEqual(bytes(0x0e, 0x4f, 0x58, 0x0f));
  });

  it('writes 0x6F for a character it lacks in the current mode, as Java does (a surrogate pair once)', async () => {
    expect(await transcode('漢€漢', 'UTF-8', 'x-IBM930')).toEqual(bytes(0x0e, 0x4f, 0x58, 0x6f, 0x4f, 0x58, 0x0f));
    expect(await transcode('漢😀', 'UTF-8', 'x-IBM930')).toEqual(bytes(0x0e, 0x4f, 0x58, 0x6f, 0x0f));
    expect(await transcode('a€', 'UTF-8', 'x-IBM939')).toEqual(bytes(0x81, 0x6f));
    // '?' is a character of the single-byte table: it leaves pair mode.
    expect(await transcode('漢?漢', 'UTF-8', 'x-IBM930')).toEqual(bytes(0x0e, 0x4f, 0x58, 0x0f, 0x6f, 0x0e, 0x4f, 0x58, 0x0f));
    expect(await transcode(Buffer.from('漢\udc00漢', 'utf16le'), 'UTF-16LE', 'x-IBM937')).toEqual(bytes(0x0e, 0x5e, 0xc6, 0x6f, 0x5e, 0xc6, 0x0f));
  });

  it('reads malformed input as Java does', async () => {
    const cases: Array<[number[], string]> = [
      [[0x0e, 0x45, 0x41, 0x0f], '\u4e00'],
      [[0x0e, 0x45, 0x41], '\u4e00'], // no SI at the end
      [[0x0e], ''],
      [[0x0e, 0x45], '\ufffd'], // a lone last byte
      [[0x0f, 0x81], '\ufffd\uff71'], // SI in single-byte mode
      [[0x0e, 0x0e, 0x45, 0x41, 0x0f], '\ufffd\u4e00'], // SO in pair mode
      [[0x0e, 0x45, 0x41, 0x0e, 0x81], '\u4e00\ufffd\ufffd'],
      [[0x0e, 0x41, 0x0f, 0x81], '\ufffd\ufffd'], // SI as a pair's second byte is part of the pair
      [[0x0e, 0x45, 0x3f, 0x0f, 0x81], '\ufffd\uff71'],
      [[0x0e, 0x45, 0x41, 0xff, 0xff, 0x45, 0x41, 0x0f], '\u4e00\ufffd\u4e00'],
      [[0x0e, 0x40, 0x40, 0x0f], '\u3000'],
      [[0x81, 0x0e, 0x0f, 0x82], '\uff71\uff72'],
    ];
    for (const [data, text] of cases) expect(await decode('x-IBM930', Buffer.from(data)), data.map((b) => b.toString(16)).join(' ')).toBe(text);
  });

  it('round-trips every character of every pair table and of the single-byte table', async () => {
    const names = await ebcdicDbcsNames();
    expect(names).toEqual(['x-IBM930', 'x-IBM939', 'x-IBM933', 'x-IBM935', 'x-IBM937', 'x-IBM1364']);
    for (const page of names) {
      const codec = (await ebcdicDbcsCodec(page))!;
      const pairs: number[] = [0x0e];
      for (let first = PAIR_LOW; first <= PAIR_HIGH; first++) for (let second = PAIR_LOW; second <= PAIR_HIGH; second++) pairs.push(first, second);
      pairs.push(0x0f);
      const singles = Array.from({ length: 256 }, (_, b) => b).filter((b) => b !== 0x0e && b !== 0x0f);
      const text = [...codec.decode(Buffer.from(pairs)), ...codec.decode(Buffer.from(singles))].filter((c) => c !== '\ufffd').join('');
      expect(text.length, page).toBeGreaterThan(9000);
      expect(codec.decode(codec.encode(text)), page).toBe(text);
    }
  });

  it('refuses a name it does not know', async () => {
    const file = join(env.home, 'in', 'x');
    writeFileSync(file, 'x');
    const ctx = makeContext(env.home, { currentFile: file });
    expect(await runOne('TRANSCODE', '-from UTF-8 -to x-IBM931', ctx)).toMatchObject({ kind: 'failure', message: 'TRANSCODE: unsupported charset x-IBM931' });
  });
});
