import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigError, decryptPasswordHex, encryptPasswordHex, generateCryptoKey, readCryptoKeyFile, readGgpFile, writeCryptoKeyFile, writeGgpFile,
} from '../../src/config/index.js';

const KEY = Buffer.from('d3074a6b3108a22c', 'hex');
const CAPTURE_KEY = Buffer.from('831f582c76c725df', 'hex');

describe('password cryptography (config.md §10.2 vectors)', () => {
  const vectors: Array<[Buffer, string, string]> = [
    [KEY, 'password', '5a4b7c6a66065cbb622acefec8c3a302'],
    [KEY, 'wm-clientpassword', '04ebd92364b5aa60c29f04da512aca4be069dc6c6a842e25'],
    [KEY, 'secret', '1217ddeac3d57fab'],
    [KEY, 'partnerA-pwd', '0c5197e36a3d31505460290486b3c154'],
    [CAPTURE_KEY, 'pwdhttp', 'c5f4876737cf351a'],
    [CAPTURE_KEY, 'test de password', 'a5847a6ebb2eb5230554eb160326e7b1893eecb714f52fc6'],
    [CAPTURE_KEY, 'test de password2', 'a5847a6ebb2eb5230554eb160326e7b1f53a193d9c6ee1b0'],
  ];
  it.each(vectors)('key %s: %s <-> %s', (key, clear, hex) => {
    expect(encryptPasswordHex(key, clear)).toBe(hex);
    expect(decryptPasswordHex(key, hex)).toBe(clear);
    expect(decryptPasswordHex(key, hex.toUpperCase())).toBe(clear);
  });

  it('refuses bad hex and wrong keys without revealing the value', () => {
    const bad = 'zz4b7c6a66065cbb622acefec8c3a302';
    expect(() => decryptPasswordHex(KEY, bad)).toThrow(ConfigError);
    try { decryptPasswordHex(KEY, bad); } catch (e) { expect((e as Error).message).not.toContain(bad); }
    const wrongKey = Buffer.from('0102030405060708', 'hex');
    expect(() => decryptPasswordHex(wrongKey, '5a4b7c6a66065cbb622acefec8c3a302')).toThrow(/wrong cryptokey/);
    expect(() => decryptPasswordHex(KEY, '5a4b7c6a')).toThrow(/multiple of 8/);
  });

  it('generates 8-byte keys with odd parity', () => {
    const k = generateCryptoKey();
    expect(k.length).toBe(8);
    for (const b of k) expect(b.toString(2).split('1').length - 1).toSatisfy((n: number) => n % 2 === 1);
    expect(decryptPasswordHex(k, encryptPasswordHex(k, 'x'))).toBe('x');
  });
});

describe('key and .ggp files', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'cfg-crypto-')); });
  afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

  it('writes raw key bytes (mode 0600) and reads them back', async () => {
    const f = join(dir, 'cryptokey.des');
    await writeCryptoKeyFile(f, CAPTURE_KEY);
    expect(await readFile(f)).toEqual(CAPTURE_KEY);
    expect((await stat(f)).mode & 0o777).toBe(0o600);
    expect(await readCryptoKeyFile(f)).toEqual(CAPTURE_KEY);
  });

  it('rejects a short or missing key file naming the file', async () => {
    const f = join(dir, 'short.des');
    await writeFile(f, Buffer.from([1, 2, 3]));
    await expect(readCryptoKeyFile(f)).rejects.toThrow(/short\.des.*3 bytes, expected 8/);
    await expect(readCryptoKeyFile(join(dir, 'none.des'))).rejects.toThrow(/none\.des.*not found/);
  });

  it('reads the capture .ggp (trailing newline tolerated) and writes without newline', async () => {
    const f = join(dir, 'hosta.ggp');
    await writeFile(f, 'a5847a6ebb2eb5230554eb160326e7b1893eecb714f52fc6\r\n');
    expect(await readGgpFile(f, CAPTURE_KEY)).toBe('test de password');
    const out = join(dir, 'out.ggp');
    expect(await writeGgpFile(out, KEY, 'password')).toBe('5a4b7c6a66065cbb622acefec8c3a302');
    expect(await readFile(out, 'utf8')).toBe('5a4b7c6a66065cbb622acefec8c3a302');
  });

  it('reports an undecryptable .ggp with its file name, never its content', async () => {
    const f = join(dir, 'bad.ggp');
    await writeFile(f, '5a4b7c6a66065cbb622acefec8c3a302');
    const err = await readGgpFile(f, CAPTURE_KEY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('bad.ggp');
    expect((err as Error).message).not.toContain('5a4b7c6a');
  });
});
