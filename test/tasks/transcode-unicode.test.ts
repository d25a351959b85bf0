// TRANSCODE with Java's Unicode charsets (tasks.md "TRANSCODE"): byte order marks, byte orders and
// unpaired surrogates as Java 17 writes and reads them (each expected value was printed by Java).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codecFor } from '../../src/tasks/transcode-task.js';
import { makeHome } from './helpers.js';
import { transcodeFile } from './transcode-file.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

const encode = async (name: string, text: string): Promise<string> => (await codecFor(name))!.encode(text).toString('hex');
/** The UTF-16 units read from `hex`, as 4-digit hex. */
const decode = async (name: string, hex: string): Promise<string> =>
  [...(await codecFor(name))!.decode(Buffer.from(hex, 'hex'))].flatMap((c) => (c.length === 2 ? [c.charCodeAt(0), c.charCodeAt(1)] : [c.charCodeAt(0)])).map((u) => u.toString(16).padStart(4, '0')).join(' ');

describe("TRANSCODE with Java's Unicode charsets", () => {
  it('writes the byte order and mark Java writes for each name', async () => {
    const cases: Array<[string, string]> = [
      ['UTF-8', '41c3a9'], ['UTF-16', 'feff004100e9'], ['UTF-16LE', '4100e900'], ['UTF-16BE', '004100e9'],
      ['UTF-32', '00000041000000e9'], ['UTF-32LE', '41000000e9000000'], ['x-UTF-16LE-BOM', 'fffe4100e900'],
      ['X-UTF-32BE-BOM', '0000feff00000041000000e9'], ['X-UTF-32LE-BOM', 'fffe000041000000e9000000'],
      // Aliases, and two charsets iconv-lite knows under other names.
      ['unicode', 'feff004100e9'], ['UnicodeLittle', 'fffe4100e900'], ['UnicodeBigUnmarked', '004100e9'], ['UTF_32', '00000041000000e9'],
      ['x-mswin-936', '41a8a6'], ['x-MacCentralEurope', '418e'],
    ];
    for (const [name, hex] of cases) expect(await encode(name, 'Aé'), name).toBe(hex);
    expect(await encode('UTF-16', ''), 'empty text, no mark').toBe('');
    expect(await encode('X-UTF-32BE-BOM', ''), 'empty text, no mark').toBe('');
    expect(await encode('X-UTF-32BE-BOM', '😀')).toBe('0000feff0001f600');
    expect(await encode('UTF-32LE', '😀')).toBe('00f60100');
  });

  it('writes an unpaired surrogate as ? in UTF-8 and U+FFFD in the others', async () => {
    expect(await encode('UTF-8', 'A\ud800B')).toBe('413f42');
    expect(await encode('UTF-16', 'A\ud800B')).toBe('feff0041fffd0042');
    expect(await encode('UTF-16LE', 'A\udc00B')).toBe('4100fdff4200');
    expect(await encode('UTF-32', 'A\ud800B')).toBe('000000410000fffd00000042');
  });

  it('reads marks, orders and malformed units as Java does', async () => {
    const cases: Array<[string, string, string]> = [
      ['UTF-8', 'efbbbf41', 'feff 0041'], // the mark stays a character
      ['UTF-16', 'feff0041', '0041'], ['UTF-16', 'fffe4100', '0041'], ['UTF-16', '0041', '0041'], ['UTF-16', 'fffe', ''],
      ['UTF-16', '004100', '0041 fffd'],
      ['UTF-16LE', 'fffe4100', 'feff 0041'], ['UTF-16BE', 'feff0041', 'feff 0041'],
      ['x-UTF-16LE-BOM', 'fffe4100', '0041'], ['x-UTF-16LE-BOM', '4100', '0041'], ['x-UTF-16LE-BOM', 'feff4100', '4100'],
      ['UTF-32', '0000feff00000041', '0041'], ['UTF-32', 'fffe000041000000', '0041'],
      ['X-UTF-32LE-BOM', 'fffe000041000000', '0041'], ['X-UTF-32BE-BOM', '00000041', '0041'],
      ['UTF-32BE', '0000feff00000041', '0041'], ['UTF-32BE', '0011000000000041', 'fffd 0041'],
      ['UTF-32BE', '0000d80000000041', 'd800 0041'], ['UTF-32BE', '000000410000', '0041 fffd'],
      ['UTF-16BE', 'd8000041', 'fffd'], ['UTF-16BE', 'dc000041', 'fffd 0041'], ['UTF-16BE', 'd83dde00', 'd83d de00'],
      ['UTF-8', '41c328', '0041 fffd 0028'], ['UTF-8', 'f09f9880', 'd83d de00'], ['UTF-8', '41f09f98', '0041 fffd'],
    ];
    for (const [name, hex, units] of cases) expect(await decode(name, hex), `${name} ${hex}`).toBe(units);
  });

  it('runs from a rule: UTF-8 with a mark to UTF-16 keeps the mark as a character, big-endian after the mark', async () => {
    const out = await transcodeFile(env.home, Buffer.from('efbbbf41c3a90a', 'hex'), 'UTF-8', 'UTF-16');
    expect(out.toString('hex')).toBe('fefffeff004100e9000a');
    const back = await transcodeFile(env.home, out, 'UTF-16', 'UTF-8');
    expect(back.toString('hex')).toBe('efbbbf41c3a90a');
  });
});
