import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../src/model/error-code.js';
import { chmodMode } from '../../src/tasks/check-tasks.js';
import { canMakeUnwritable, makeUnwritable } from '../helpers/unwritable-file.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

function withFile(name = 'a.txt', content = 'data') {
  const file = join(env.home, 'in', name);
  writeFileSync(file, content);
  const ctx = makeContext(env.home, { currentFile: file });
  ctx.transfer!.filename = file;
  return { file, ctx };
}

describe('COPY', () => {
  it('copies into a directory (raw argument, backslashes) and keeps the current file', async () => {
    const { file, ctx } = withFile();
    const dir = join(env.home, 'copies', 'deep');
    const r = await runOne('COPY', dir.replace(/\//g, '\\'), ctx);
    expect(r.kind).toBe('success');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('data');
    expect(ctx.currentFile).toBe(file);
    expect(ctx.transfer!.isMoved).toBe(false);
  });
  it('does not substitute variables', async () => {
    const { ctx } = withFile();
    await runOne('COPY', join(env.home, '#RULE#'), ctx);
    expect(existsSync(join(env.home, '#RULE#', 'a.txt'))).toBe(true);
  });
  it('overwrites an existing destination', async () => {
    const { ctx } = withFile();
    mkdirSync(join(env.home, 'o'));
    writeFileSync(join(env.home, 'o', 'a.txt'), 'old');
    await runOne('COPY', join(env.home, 'o'), ctx);
    expect(readFileSync(join(env.home, 'o', 'a.txt'), 'utf8')).toBe('data');
  });
  it('fails when the source is missing or not a regular file', async () => {
    const ctx = makeContext(env.home, { currentFile: join(env.home, 'nope') });
    expect(await runOne('COPY', env.home, ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.FileNotFound });
    ctx.currentFile = join(env.home, 'in');
    expect(await runOne('COPY', join(env.home, 'x'), ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp });
    ctx.currentFile = null;
    expect((await runOne('COPY', join(env.home, 'x'), ctx)).kind).toBe('failure');
  });
  it('fails when the destination cannot be written', async () => {
    const { ctx } = withFile();
    writeFileSync(join(env.home, 'blocker'), 'x');
    const r = await runOne('COPY', join(env.home, 'blocker', 'sub'), ctx);
    expect(r).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp });
  });
});

describe('COPYRENAME', () => {
  it('copies to the substituted full path; current file unchanged', async () => {
    const { file, ctx } = withFile();
    const r = await runOne('COPYRENAME', ' #ARCHPATH#/#DATE#_#ORIGINALFILENAME# ', ctx);
    expect(r).toMatchObject({ kind: 'success', data: join(env.home, 'arch', '20240315_orig.txt') });
    expect(readFileSync(join(env.home, 'arch', '20240315_orig.txt'), 'utf8')).toBe('data');
    expect(ctx.currentFile).toBe(file);
  });
});

describe('MOVE / MOVERENAME', () => {
  it('MOVE moves into a directory, repoints the current file and the record', async () => {
    const { file, ctx } = withFile();
    const r = await runOne('MOVE', '#ARCHPATH#/#RULE#', ctx);
    const dest = join(env.home, 'arch', 'rule1', 'a.txt');
    expect(r.kind).toBe('success');
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(dest, 'utf8')).toBe('data');
    expect(ctx.currentFile).toBe(dest);
    expect(ctx.transfer).toMatchObject({ filename: dest, isMoved: true });
  });
  it('MOVERENAME moves to a full path, relative paths against home', async () => {
    const { ctx } = withFile();
    await runOne('MOVERENAME', 'out/renamed.bin', ctx);
    const dest = join(env.home, 'out', 'renamed.bin');
    expect(readFileSync(dest, 'utf8')).toBe('data');
    expect(ctx.currentFile).toBe(dest);
  });
  it('fails on a missing source without touching the record', async () => {
    const ctx = makeContext(env.home, { currentFile: join(env.home, 'in', 'missing') });
    const r = await runOne('MOVE', join(env.home, 'out'), ctx);
    expect(r).toMatchObject({ kind: 'failure', code: ErrorCode.FileNotFound });
    expect(ctx.transfer!.isMoved).toBe(false);
  });
  it('fails when the destination is unwritable', async () => {
    const { file, ctx } = withFile();
    writeFileSync(join(env.home, 'blocker'), 'x');
    expect((await runOne('MOVERENAME', join(env.home, 'blocker', 'f'), ctx)).kind).toBe('failure');
    expect(ctx.currentFile).toBe(file);
  });
});

describe('LINKRENAME', () => {
  it('hard-links to the first word of the argument and repoints', async () => {
    const { file, ctx } = withFile();
    const dest = join(env.home, 'out', 'link.txt');
    const r = await runOne('LINKRENAME', `${dest} ignored`, ctx);
    expect(r.kind).toBe('success');
    expect(statSync(dest).ino).toBe(statSync(file).ino);
    expect(ctx.currentFile).toBe(dest);
    expect(ctx.transfer!.isMoved).toBe(true);
  });
  it('replaces an existing destination', async () => {
    const { ctx } = withFile();
    const dest = join(env.home, 'out', 'link.txt');
    writeFileSync(dest, 'old');
    await runOne('LINKRENAME', dest, ctx);
    expect(readFileSync(dest, 'utf8')).toBe('data');
    expect(lstatSync(dest).isFile()).toBe(true);
  });
  it('fails without a source', async () => {
    const ctx = makeContext(env.home);
    expect((await runOne('LINKRENAME', join(env.home, 'x'), ctx)).kind).toBe('failure');
  });
});

describe('RENAME', () => {
  it('repoints without touching the disk', async () => {
    const { file, ctx } = withFile();
    const r = await runOne('RENAME', '#INPATH#\\#ORIGINALFILENAME#', ctx);
    const dest = join(env.home, 'in', 'orig.txt');
    expect(r).toMatchObject({ kind: 'success', data: dest });
    expect(existsSync(file)).toBe(true);
    expect(existsSync(dest)).toBe(false);
    expect(ctx.currentFile).toBe(dest);
    expect(ctx.transfer).toMatchObject({ filename: dest, isMoved: true });
  });
  it('fails on an empty argument', async () => {
    const { ctx } = withFile();
    expect((await runOne('RENAME', '  ', ctx)).kind).toBe('failure');
  });
});

describe('DELETE', () => {
  it('deletes the current file', async () => {
    const { file, ctx } = withFile();
    expect(await runOne('DELETE', 'ignored', ctx)).toEqual({ kind: 'success' });
    expect(existsSync(file)).toBe(false);
  });
  it('a missing file is a warning', async () => {
    const ctx = makeContext(env.home, { currentFile: join(env.home, 'gone') });
    expect(await runOne('DELETE', '', ctx)).toEqual({ kind: 'success', warning: true });
  });
  it('a file-system error is a failure f', async () => {
    const ctx = makeContext(env.home, { currentFile: join(env.home, 'in') });
    expect(await runOne('DELETE', '', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.FileNotFound });
  });
});

describe('VALIDFILEPATH', () => {
  it('accepts a plain string prefix, logs with delay > 0', async () => {
    const { ctx } = withFile();
    expect((await runOne('VALIDFILEPATH', `/nowhere #INPATH#`, ctx, 1)).kind).toBe('success');
    expect(ctx.logger.text()).toMatch(/info: VALIDFILEPATH/);
    expect((await runOne('VALIDFILEPATH', `${env.home}/i`, ctx)).kind).toBe('success');
  });
  it('refuses other paths', async () => {
    const { ctx } = withFile();
    const r = await runOne('VALIDFILEPATH', '#OUTPATH#/ #ARCHPATH#', ctx, 1);
    expect(r).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp });
    expect(ctx.logger.text()).toMatch(/error: VALIDFILEPATH/);
    ctx.currentFile = null;
    expect((await runOne('VALIDFILEPATH', '/', ctx)).kind).toBe('failure');
  });
});

describe('CHKFILE', () => {
  const sized = (size: number) => {
    const ctx = makeContext(env.home);
    ctx.transfer!.transferInfo = `{"ORIGINALSIZE":${size}}`;
    return ctx;
  };
  it('compares the announced size', async () => {
    expect((await runOne('CHKFILE', 'SIZE LT 100 SIZE GTE 50 SIZE EQ 50', sized(50))).kind).toBe('success');
    expect(await runOne('CHKFILE', 'SIZE GT 100', sized(50))).toMatchObject({ kind: 'failure', code: ErrorCode.SizeNotAllowed });
    expect(await runOne('CHKFILE', 'SIZE LTE 49', sized(50))).toMatchObject({ kind: 'failure', code: ErrorCode.SizeNotAllowed });
  });
  it('ignores malformed items, lower-case operators and unknown words', async () => {
    expect((await runOne('CHKFILE', 'SIZE LT abc SIZE lt 1 FOO', sized(50))).kind).toBe('success');
  });
  it('succeeds without checking when the size is unknown; fails without a record', async () => {
    expect((await runOne('CHKFILE', 'SIZE LT 1', sized(-1))).kind).toBe('success');
    expect((await runOne('CHKFILE', 'SIZE LT 1', makeContext(env.home, { transfer: null }))).kind).toBe('failure');
  });
  it('DFCHECK checks free space on the receiver only', async () => {
    const huge = sized(Number.MAX_SAFE_INTEGER);
    huge.session.isSender = false;
    expect(await runOne('CHKFILE', 'DFCHECK', huge)).toMatchObject({ kind: 'failure', code: ErrorCode.SizeNotAllowed });
    huge.session.isSender = true;
    expect((await runOne('CHKFILE', 'DFCHECK', huge)).kind).toBe('success');
    const small = sized(10);
    small.session.isSender = false;
    expect((await runOne('CHKFILE', 'DFCHECK', small)).kind).toBe('success');
  });
});

describe('CHMOD', () => {
  it('computes modes as specified', () => {
    expect(chmodMode(0o640, 'a=r a+w a-r') & 0o777).toBe(0o622);
    expect(chmodMode(0o640, 'u+x') & 0o777).toBe(0o740);
    expect(chmodMode(0o640, 'u=rwx a=r')).toBe(0o744);
    expect(chmodMode(0o640, 'ua-w')).toBe(0o400);
    expect(chmodMode(0o640, 'x+r g+w u+')).toBe(0o640);
  });
  it('applies them to the current file', async () => {
    const { file, ctx } = withFile();
    chmodSync(file, 0o600);
    expect((await runOne('CHMOD', 'U+X  A+R', ctx)).kind).toBe('success');
    expect(statSync(file).mode & 0o777).toBe(0o744);
  });
  it('fails on a missing file', async () => {
    const ctx = makeContext(env.home, { currentFile: join(env.home, 'none') });
    expect((await runOne('CHMOD', 'a+r', ctx)).kind).toBe('failure');
  });
});

describe('UNZEROED', () => {
  it('fills an empty file with the raw argument, or one space', async () => {
    const { file, ctx } = withFile('e.txt', '');
    expect((await runOne('UNZEROED', 'empty #RULE#', ctx, 1)).kind).toBe('success');
    expect(readFileSync(file, 'utf8')).toBe('empty #RULE#');
    expect(ctx.logger.text()).toMatch(/info: UNZEROED/);
    writeFileSync(file, '');
    await runOne('UNZEROED', '', ctx, 2);
    expect(readFileSync(file, 'utf8')).toBe(' ');
    expect(ctx.logger.text()).toMatch(/warn: UNZEROED/);
  });
  it('leaves a non-empty file alone', async () => {
    const { file, ctx } = withFile();
    await runOne('UNZEROED', 'x', ctx);
    expect(readFileSync(file, 'utf8')).toBe('data');
  });
  it.skipIf(!canMakeUnwritable())('fails when the empty file cannot be written', async () => {
    const { file, ctx } = withFile('ro.txt', '');
    const undo = makeUnwritable(file);
    try {
      expect((await runOne('UNZEROED', 'x', ctx)).kind).toBe('failure');
      expect(readFileSync(file, 'utf8')).toBe('');
    } finally {
      undo();
    }
  });
});
