import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPasswordTool } from '../../src/cli/password/tool.js';

const CAPTURE_KEY = Buffer.from('831f582c76c725df', 'hex');
let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'cfg-pwd-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

async function run(args: string[], input = ''): Promise<{ code: number; out: string; err: string }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => { out += d.toString(); });
  stderr.on('data', (d: Buffer) => { err += d.toString(); });
  stdin.end(input);
  const code = await runPasswordTool(args, { stdin, stdout, stderr });
  return { code, out, err };
}

describe('svc-password (config.md §10.4)', () => {
  it('-ko creates an 8-byte key and prints Key written', async () => {
    const key = join(dir, 'new.des');
    expect(await run(['-ko', key])).toEqual({ code: 0, out: 'Key written\n', err: '' });
    expect((await readFile(key)).length).toBe(8);
  });

  it('-ki -pwd -po writes the .ggp and prints the capture vector; options are case-insensitive', async () => {
    const key = join(dir, 'k.des');
    await writeFile(key, CAPTURE_KEY);
    const ggp = join(dir, 'hosta.ggp');
    const r = await run(['-KI', key, '-Pwd', 'test de password', '-po', ggp, '-clear']);
    expect(r).toEqual({ code: 0, out: 'CryptedPwd: a5847a6ebb2eb5230554eb160326e7b1893eecb714f52fc6\nClearPwd: test de password\n', err: '' });
    expect(await readFile(ggp, 'utf8')).toBe('a5847a6ebb2eb5230554eb160326e7b1893eecb714f52fc6');
    expect(await run(['-ki', key, '-pi', ggp, '-clear'])).toMatchObject({ code: 0, out: 'CryptedPwd: a5847a6ebb2eb5230554eb160326e7b1893eecb714f52fc6\nClearPwd: test de password\n' });
    expect(await run(['-ki', key, '-cpwd', 'c5f4876737cf351a', '-po', join(dir, 'h.ggp'), '-clear'])).toMatchObject({ code: 0, out: 'CryptedPwd: c5f4876737cf351a\nClearPwd: pwdhttp\n' });
  });

  it('prompts for the password with -po alone; an empty answer exits 4', async () => {
    const key = join(dir, 'k.des');
    await writeFile(key, CAPTURE_KEY);
    expect(await run(['-ki', key, '-po', join(dir, 'p.ggp')], 'pwdhttp\n')).toMatchObject({ code: 0, out: 'Password to crypt:CryptedPwd: c5f4876737cf351a\n' });
    expect((await run(['-ki', key, '-po', join(dir, 'q.ggp')], '\n')).code).toBe(4);
  });

  it('bad options exit 2 with usage on stderr', async () => {
    for (const args of [[], ['-pwd', 'x', '-ki', 'k'], ['-ki'], ['-ki', 'k', '-bogus'], ['-ki', 'k', '-blf']]) {
      const r = await run(args);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/svc-password: /);
    }
    expect((await run([])).err).toMatch(/Usage: svc-password/);
  });

  it('unreadable key or bad hex exit 1 with a message naming the problem, not the secret', async () => {
    expect(await run(['-ki', join(dir, 'none.des')])).toMatchObject({ code: 1, err: expect.stringMatching(/none\.des: cryptokey file file not found/) as unknown as string });
    const key = join(dir, 'k.des');
    await writeFile(key, CAPTURE_KEY);
    const r = await run(['-ki', key, '-cpwd', 'deadbeefdeadbeef', '-po', join(dir, 'x.ggp')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/cannot decrypt the password/);
    expect(r.err).not.toContain('deadbeef');
  });

  it('runs as a real process through bin/svc-password.js', async () => {
    const key = join(dir, 'k.des');
    await writeFile(key, CAPTURE_KEY);
    const bin = fileURLToPath(new URL('../../bin/svc-password.js', import.meta.url));
    const result = await new Promise<{ code: number | null; stdout: string }>((res) => {
      const child = execFile(process.execPath, [bin, '-ki', key, '-pwd', 'pwdhttp', '-po', join(dir, 'x.ggp')], (_e, stdout) => res({ code: child.exitCode, stdout }));
    });
    expect(result).toEqual({ code: 0, stdout: 'CryptedPwd: c5f4876737cf351a\n' });
  });
});
