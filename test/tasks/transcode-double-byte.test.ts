// TRANSCODE with the JVM's East Asian charsets without shifts (tasks.md "TRANSCODE"): tables read
// from Java, so bytes, replacements and malformed input are Java's (each expected value was
// printed by Java 17; iconv-lite, used before, gave another answer for most of them).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codecFor } from '../../src/tasks/transcode-task.js';
import { makeHome } from './helpers.js';
import { transcodeFile } from './transcode-file.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

const encode = async (name: string, text: string): Promise<string> => (await codecFor(name))!.encode(text).toString('hex');
const decode = async (name: string, hex: string): Promise<string> => (await codecFor(name))!.decode(Buffer.from(hex, 'hex'));

describe("TRANSCODE with the JVM's East Asian charsets", () => {
  it('writes what Java writes, the standard tables under the standard names', async () => {
    expect(await encode('Shift_JIS', '日本語テキスト')).toBe('93fa967b8cea8365834c83588367');
    expect(await encode('Shift_JIS', '¢£¬')).toBe('8191819281ca'); // iconv-lite (cp932): ???
    expect(await encode('Shift_JIS', '～①')).toBe('3f3f'); // Microsoft's extensions: not in Shift_JIS
    expect(await encode('windows-31j', '～①')).toBe('81608740');
    expect(await encode('EUC-KR', '한국어')).toBe('c7d1b1b9beee');
    expect(await encode('EUC-KR', '\uac02')).toBe('3f'); // iconv-lite (cp949): 8141
    expect(await encode('GB2312', '中文·')).toBe('d6d0cec43f'); // iconv-lite (GBK): a1a4 for ·
    expect(await encode('Big5', '繁體')).toBe('c163c5e9');
    expect(await encode('sjis', '😀')).toBe('3f'); // a surrogate pair: one ?
    // EUC-JP: JIS X 0212 after 0x8F, half-width katakana after 0x8E, JIS's wave dash and cent sign.
    expect(await encode('EUC-JP', '丂ｱ〜¢')).toBe('8fb0a18eb1a1c1a1f1'); // iconv-lite: 8fb0a1 8eb1 a1c1 3f
    expect(await decode('eucjp', '8fb0a18eb1a1c1')).toBe('丂ｱ〜'); // iconv-lite read a1c1 as ～ (U+FF5E)
  });

  it('reads malformed input as Java does', async () => {
    expect(await decode('x-windows-949', '818041')).toBe('\ufffdA'); // the pair has no character: both bytes go
    expect(await decode('Big5', '8740')).toBe('\ufffd@'); // the lead is read alone
    expect(await decode('Shift_JIS', '804088')).toBe('\ufffd@\ufffd'); // and a lead byte at the end
    expect(await decode('EUC-JP', '8fb0418f41')).toBe('\ufffd\ufffd'); // three-byte sequences cut short
  });

  it('runs from a rule: UTF-8 to Shift_JIS and back', async () => {
    const sjis = await transcodeFile(env.home, '請求書 No.12\n', 'UTF-8', 'Shift_JIS');
    expect((await transcodeFile(env.home, sjis, 'csShiftJIS', 'UTF-8')).toString('utf8')).toBe('請求書 No.12\n');
  });
});
