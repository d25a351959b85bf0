import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tar from 'tar';
import * as yazl from 'yazl';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { compress } from 'zstd-napi';
import { ErrorCode } from '../../src/model/error-code.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

function tree(): string {
  const src = join(env.home, 'src');
  mkdirSync(join(src, 'sub', 'deep'), { recursive: true });
  writeFileSync(join(src, 'top.txt'), 'top');
  writeFileSync(join(src, 'sub', 'deep', 'x.bin'), Buffer.from([0, 1, 2, 255]));
  writeFileSync(join(src, 'skip.tar'), 'no');
  writeFileSync(join(src, 'skip.ZIP'), 'no');
  return src;
}

async function tarNames(file: string): Promise<string[]> {
  const names: string[] = [];
  await tar.t({ file, onReadEntry: (e) => { names.push(e.path); } });
  return names.sort();
}

describe('TAR', () => {
  it('delay 2 archives a directory (leading / names, .tar skipped) and extraction restores it', async () => {
    const src = tree();
    const ctx = makeContext(env.home);
    const archive = join(env.home, 'arch', 'all.tar');
    expect((await runOne('TAR', `${archive} ${src}`, ctx, 2)).kind).toBe('success');
    expect(await tarNames(archive)).toEqual(['/skip.ZIP', '/sub/deep/x.bin', '/top.txt']);
    const out = join(env.home, 'out', 'x');
    expect((await runOne('TAR', `${archive} ${out}`, ctx, 1)).kind).toBe('success');
    expect(readFileSync(join(out, 'top.txt'), 'utf8')).toBe('top');
    expect(readFileSync(join(out, 'sub', 'deep', 'x.bin'))).toEqual(Buffer.from([0, 1, 2, 255]));
  });
  it('archives an empty directory as an empty archive', async () => {
    mkdirSync(join(env.home, 'empty'));
    const archive = join(env.home, 'e.tar');
    expect((await runOne('TAR', `${archive} ${join(env.home, 'empty')}`, makeContext(env.home), 2)).kind).toBe('success');
    expect(await tarNames(archive)).toEqual([]);
  });
  it('delay 3 archives listed files under their base names', async () => {
    const src = tree();
    const archive = join(env.home, 'arch', 'files.tar');
    const r = await runOne('TAR', `${archive} ${join(src, 'top.txt')} ${join(src, 'sub', 'deep', 'x.bin')}`, makeContext(env.home), 3);
    expect(r.kind).toBe('success');
    expect(await tarNames(archive)).toEqual(['top.txt', 'x.bin']);
  });
  it('refuses an entry with .. and writes nothing', async () => {
    const evil = join(env.home, 'evil.tar');
    const pack = new tar.Pack({ preservePaths: true, cwd: env.home, onWriteEntry: (e) => { e.path = '../escaped.txt'; } });
    writeFileSync(join(env.home, 'payload.txt'), 'bad');
    const done = pipeline(pack, createWriteStream(evil));
    pack.add('payload.txt');
    pack.end();
    await done;
    const out = join(env.home, 'out', 'ex');
    const r = await runOne('TAR', `${evil} ${out}`, makeContext(env.home), 1);
    expect(r).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp });
    if (r.kind === 'failure') expect(r.message).toMatch(/would leave/);
    expect(existsSync(join(env.home, 'out', 'escaped.txt'))).toBe(false);
  });
  it('fails on a missing archive, a missing directory or too few arguments', async () => {
    const ctx = makeContext(env.home);
    expect((await runOne('TAR', `${join(env.home, 'none.tar')} ${env.home}/o`, ctx, 1)).kind).toBe('failure');
    expect((await runOne('TAR', `${join(env.home, 'a.tar')} ${env.home}/nodir`, ctx, 2)).kind).toBe('failure');
    expect((await runOne('TAR', `${join(env.home, 'a.tar')}`, ctx, 2)).kind).toBe('failure');
    expect((await runOne('TAR', `${join(env.home, 'a.tar')} ${env.home}/nofile`, ctx, 3)).kind).toBe('failure');
  });
});

describe('ZIP', () => {
  it('delay 2 archives a directory (.zip skipped) and extraction restores it', async () => {
    const src = tree();
    const ctx = makeContext(env.home);
    const archive = join(env.home, 'arch', 'all.zip');
    expect((await runOne('ZIP', `${archive}\t${src}`, ctx, 2)).kind).toBe('success');
    const out = join(env.home, 'out', 'z');
    expect((await runOne('ZIP', `${archive} ${out}`, ctx, 1)).kind).toBe('success');
    expect(readFileSync(join(out, 'top.txt'), 'utf8')).toBe('top');
    expect(readFileSync(join(out, 'sub', 'deep', 'x.bin'))).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(existsSync(join(out, 'skip.ZIP'))).toBe(false);
    expect(existsSync(join(out, 'skip.tar'))).toBe(true);
  });
  it('delay 3 archives listed files under their base names', async () => {
    const src = tree();
    const archive = join(env.home, 'f.zip');
    const ctx = makeContext(env.home);
    expect((await runOne('ZIP', `${archive} ${join(src, 'top.txt')} ${join(src, 'sub/deep/x.bin')}`, ctx, 3)).kind).toBe('success');
    const out = join(env.home, 'o');
    await runOne('ZIP', `${archive} ${out}`, ctx, 0);
    expect(readFileSync(join(out, 'x.bin'))).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(readFileSync(join(out, 'top.txt'), 'utf8')).toBe('top');
  });
  it('refuses an entry with .. and one through a symbolic link', async () => {
    // yazl refuses such names; forge one by rewriting a stored name in place (same length).
    const zip0 = new yazl.ZipFile();
    zip0.addBuffer(Buffer.from('bad'), 'placeholder.txt');
    const file = join(env.home, 'evil.zip');
    const done0 = pipeline(zip0.outputStream, createWriteStream(file));
    zip0.end();
    await done0;
    const forged = readFileSync(file).toString('latin1').split('placeholder.txt').join('../../escape.tx');
    writeFileSync(file, Buffer.from(forged, 'latin1'));
    const out = join(env.home, 'out', 'z');
    const ctx = makeContext(env.home);
    const r = await runOne('ZIP', `${file} ${out}`, ctx, 1);
    expect(r.kind).toBe('failure');
    expect(existsSync(join(env.home, 'escape.tx'))).toBe(false);
    // a symbolic link inside the target pointing outside
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from('bad'), 'link/escaped.txt');
    const linked = join(env.home, 'linked.zip');
    const done = pipeline(zip.outputStream, createWriteStream(linked));
    zip.end();
    await done;
    const target = join(env.home, 'out', 'l');
    mkdirSync(target, { recursive: true });
    mkdirSync(join(env.home, 'outside'));
    symlinkSync(join(env.home, 'outside'), join(target, 'link'));
    const r2 = await runOne('ZIP', `${linked} ${target}`, ctx, 1);
    expect(r2.kind).toBe('failure');
    expect(existsSync(join(env.home, 'outside', 'escaped.txt'))).toBe(false);
  });
  it('fails on a corrupt archive', async () => {
    writeFileSync(join(env.home, 'bad.zip'), 'not a zip');
    expect((await runOne('ZIP', `${join(env.home, 'bad.zip')} ${join(env.home, 'o')}`, makeContext(env.home), 1)).kind).toBe('failure');
  });
});

describe('COMPRESS', () => {
  it('compresses with zstd, deletes the source, repoints; delay 1 decompresses back', async () => {
    const file = join(env.home, 'in', 'data.txt');
    const content = 'hello '.repeat(1000);
    writeFileSync(file, content);
    const ctx = makeContext(env.home, { currentFile: file });
    const r = await runOne('COMPRESS', '', ctx, 0);
    const z = `${file}.zstd`;
    expect(r).toMatchObject({ kind: 'success', data: z });
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(z).readUInt32LE(0)).toBe(0xfd2fb528);
    expect(ctx.currentFile).toBe(z);
    expect(ctx.transfer).toMatchObject({ filename: z, isMoved: true });
    const back = join(env.home, 'out', 'back.txt');
    expect((await runOne('COMPRESS', '#OUTPATH#/back.txt', ctx, 1)).kind).toBe('success');
    expect(readFileSync(back, 'utf8')).toBe(content);
    expect(existsSync(z)).toBe(false);
    expect(ctx.currentFile).toBe(back);
  });
  it('decompresses to .unzstd by default', async () => {
    const file = join(env.home, 'in', 'c.zst');
    writeFileSync(file, compress(Buffer.from('abc')));
    const ctx = makeContext(env.home, { currentFile: file });
    expect((await runOne('COMPRESS', ' ', ctx, 1)).kind).toBe('success');
    expect(readFileSync(`${file}.unzstd`, 'utf8')).toBe('abc');
  });
  it('fails on malformed input and keeps the source', async () => {
    const file = join(env.home, 'in', 'bad.zst');
    writeFileSync(file, 'not zstd at all');
    const ctx = makeContext(env.home, { currentFile: file });
    expect((await runOne('COMPRESS', '', ctx, 1)).kind).toBe('failure');
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.unzstd`)).toBe(false);
    expect(ctx.currentFile).toBe(file);
  });
});
