import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../src/model/error-code.js';
import { waitFor } from '../helpers/wait.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

/** Writes an executable shell script in the home and returns its path. */
function script(name: string, body: string): string {
  const path = join(env.home, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

describe('EXEC', () => {
  it('exit 0 is a success and arguments arrive one by one, spaces and shell syntax intact', async () => {
    const out = join(env.home, 'args.txt');
    const s = script('args.sh', `for a in "$@"; do printf '[%s]\\n' "$a" >> "${out}"; done`);
    const file = join(env.home, 'in', 'a b; touch pwned $(id) `id`.txt');
    writeFileSync(file, 'x');
    const ctx = makeContext(env.home, { currentFile: file });
    const r = await runOne('EXEC', `${s} #TRUEFULLPATH# "two words" %s #NOWAITX#`, ctx, 0);
    expect(r).toEqual({ kind: 'success' });
    expect(readFileSync(out, 'utf8')).toBe(`[${file}]\n[two words]\n[lot42]\n[\${NOWAITX}]\n`);
    expect(existsSync(join(env.home, 'pwned'))).toBe(false);
  });
  it('exit 1 is a success with a warning log but no W status', async () => {
    const ctx = makeContext(env.home);
    const r = await runOne('EXEC', `${script('one.sh', 'exit 1')}`, ctx);
    expect(r).toEqual({ kind: 'success' });
    expect(ctx.logger.text()).toMatch(/warn: EXEC: .* status 1/);
  });
  it('other exit codes fail with the STATUS/ERROR message', async () => {
    const r = await runOne('EXEC', `${script('two.sh', 'echo oops >&2; exit 2')}`, makeContext(env.home));
    expect(r).toEqual({ kind: 'failure', code: ErrorCode.ExternalOp, message: '<STATUS>2</STATUS><ERROR>oops</ERROR>' });
  });
  it('an absolute program that is not executable fails with c', async () => {
    const path = join(env.home, 'plain.sh');
    writeFileSync(path, 'exit 0');
    expect(await runOne('EXEC', path, makeContext(env.home))).toMatchObject({ kind: 'failure', code: ErrorCode.CommandNotFound });
  });
  it('an unknown program fails with c', async () => {
    expect(await runOne('EXEC', 'svc-no-such-program-xyz a', makeContext(env.home))).toMatchObject({ kind: 'failure', code: ErrorCode.CommandNotFound });
  });
  it('unbalanced quotes of the rule fail with c; the partner is not told the command line, this host\'s log is (credentials masked)', async () => {
    const ctx = makeContext(env.home);
    const r = await runOne('EXEC', '/bin/true -pwd Hunter2 "a', ctx);
    expect(r).toMatchObject({ kind: 'failure', code: ErrorCode.CommandNotFound });
    if (r.kind === 'failure') expect(r.message).not.toMatch(/bin\/true|Hunter2|"a/);
    expect(ctx.logger.text()).toContain('/bin/true -pwd ******** "a');
    expect(ctx.logger.text()).not.toContain('Hunter2');
  });
  it('a partner\'s -info with quotes, # and $ (issue 32): each %s value stays one argument, exactly as sent, never syntax or a variable', async () => {
    const out = join(env.home, 'args.txt');
    const s = script('args.sh', `for a in "$@"; do printf '[%s]\\n' "$a" >> "${out}"; done`);
    const ctx = makeContext(env.home);
    ctx.transfer!.fileInfo = `a"b c'd #RULE# \${RULE} "" x'y"z`;
    const r = await runOne('EXEC', `${s} %s %s %s %s %s %s "#RULE# %1$s" #NOWAIT-not %2$s`, ctx, 0);
    expect(r).toEqual({ kind: 'success' });
    expect(readFileSync(out, 'utf8')).toBe(`[a"b]\n[c'd]\n[#RULE#]\n[\${RULE}]\n[""]\n[x'y"z]\n[rule1 a"b]\n[#NOWAIT-not]\n[c'd]\n`);
    // The same through EXECOUTPUT and a NOWAIT marker given by the partner: not a switch.
    ctx.transfer!.fileInfo = '#NOWAIT# "';
    expect(await runOne('EXECOUTPUT', `${s} %s %s`, ctx, 0)).toMatchObject({ kind: 'success' });
    expect(readFileSync(out, 'utf8').endsWith('[#NOWAIT#]\n["]\n')).toBe(true);
  });
  it('a failing or missing program: the partner gets the status and the program\'s own error lines, not the program or its arguments', async () => {
    const ctx = makeContext(env.home);
    const missing = await runOne('EXEC', 'svc-no-such-program-xyz secretarg', ctx);
    expect(missing).toMatchObject({ kind: 'failure', code: ErrorCode.CommandNotFound, message: 'EXEC: cannot start the program: ENOENT' });
    expect(ctx.logger.text()).toContain('svc-no-such-program-xyz secretarg');
    const quiet = await runOne('EXEC', `${script('quiet.sh', 'exit 3')} secretarg`, ctx);
    expect(quiet).toMatchObject({ kind: 'failure', message: '<STATUS>3</STATUS><ERROR>EXEC: the program exited with status 3</ERROR>' });
    expect(ctx.logger.text()).toMatch(/quiet\.sh secretarg exited with status 3/);
  });
  it('PATH programs run, relative to the home directory', async () => {
    const ctx = makeContext(env.home);
    expect(await runOne('EXEC', 'touch made-here', ctx)).toEqual({ kind: 'success' });
    expect(existsSync(join(env.home, 'made-here'))).toBe(true);
  });
  it('kills the program and its children after the delay', async () => {
    const marker = join(env.home, 'late');
    const s = script('slow.sh', `sleep 30 & wait; touch "${marker}"`);
    const started = Date.now();
    const r = await runOne('EXEC', s, makeContext(env.home), 300);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.kind).toBe('failure');
    if (r.kind === 'failure') expect(r.message).toMatch(/<STATUS>-1<\/STATUS>.*time limit of 300 ms/);
    expect(existsSync(marker)).toBe(false);
  });
  it('#NOWAIT# reports success at once and the program runs on', async () => {
    const go = join(env.home, 'go');
    const done = join(env.home, 'done');
    const s = script('bg.sh', `while [ ! -f "${go}" ]; do sleep 0.05; done; touch "${done}"; exit 7`);
    const r = await runOne('EXEC', `${s} #NOWAIT#`, makeContext(env.home), 0);
    expect(r).toEqual({ kind: 'success' });
    expect(existsSync(done)).toBe(false);
    writeFileSync(go, '');
    await waitFor(() => existsSync(done), { what: 'detached program to finish' });
  });
  it('#NOWAIT# with a program that cannot start fails', async () => {
    expect((await runOne('EXEC', 'svc-no-such-program-xyz #NOWAIT#', makeContext(env.home))).kind).toBe('failure');
  });
});

describe('EXECMOVE', () => {
  it('repoints the current file to the last non-empty output line', async () => {
    const file = join(env.home, 'in', 'a.txt');
    writeFileSync(file, 'x');
    const dest = join(env.home, 'out', 'moved.txt');
    const s = script('mv.sh', `mv "$1" "$2"; echo noise; echo "  $2  "; echo`);
    const ctx = makeContext(env.home, { currentFile: file });
    const r = await runOne('EXECMOVE', `${s} #TRUEFULLPATH# ${dest} #NOWAIT#`, ctx, 5000);
    expect(r).toEqual({ kind: 'success', data: dest });
    expect(ctx.currentFile).toBe(dest);
    expect(ctx.transfer).toMatchObject({ filename: dest, isMoved: true });
    expect(existsSync(dest)).toBe(true);
  });
  it('exit 0 without output fails; exit 1 is a warning without repoint', async () => {
    const file = join(env.home, 'in', 'a.txt');
    writeFileSync(file, 'x');
    const ctx = makeContext(env.home, { currentFile: file });
    expect((await runOne('EXECMOVE', script('q.sh', 'exit 0'), ctx)).kind).toBe('failure');
    expect(await runOne('EXECMOVE', script('w.sh', 'echo /x; exit 1'), ctx)).toEqual({ kind: 'success', warning: true });
    expect(ctx.currentFile).toBe(file);
    expect((await runOne('EXECMOVE', script('f.sh', 'exit 4'), ctx)).kind).toBe('failure');
  });
  it('logs a warning when the new file does not exist', async () => {
    const ctx = makeContext(env.home, { currentFile: join(env.home, 'in', 'a') });
    const r = await runOne('EXECMOVE', script('p.sh', 'echo "C:\\\\data\\\\x.txt"'), ctx);
    expect(r.kind).toBe('success');
    expect(ctx.logger.text()).toMatch(/does not exist/);
    expect(ctx.currentFile).toBe(join(env.home, 'C:/data/x.txt'));
  });
  it('times out', async () => {
    const r = await runOne('EXECMOVE', script('s.sh', 'sleep 30'), makeContext(env.home), 200);
    expect(r.kind).toBe('failure');
  });
});

describe('EXECOUTPUT', () => {
  it('exit 0: success with the trimmed non-empty lines', async () => {
    const r = await runOne('EXECOUTPUT', script('o.sh', 'echo "  a "; echo; echo b'), makeContext(env.home));
    expect(r).toEqual({ kind: 'success', data: 'a\nb\n' });
  });
  it('exit 1: warning', async () => {
    expect(await runOne('EXECOUTPUT', script('o1.sh', 'echo w; exit 1'), makeContext(env.home))).toEqual({ kind: 'success', warning: true, data: 'w\n' });
  });
  it('other: failure with the output; NEWFINALNAME: repoints the current file', async () => {
    const file = join(env.home, 'in', 'a.txt');
    writeFileSync(file, 'x');
    const ctx = makeContext(env.home, { currentFile: file });
    const newName = join(env.home, 'out', 'renamed.txt');
    renameSync(file, newName);
    const r = await runOne('EXECOUTPUT', script('o2.sh', `echo "bad thing"; echo "NEWFINALNAME:${newName}"; exit 3`), ctx);
    expect(r).toEqual({ kind: 'failure', code: ErrorCode.ExternalOp, message: '<STATUS>3</STATUS><ERROR>bad thing</ERROR>' });
    expect(ctx.currentFile).toBe(newName);
    expect(ctx.transfer!.isMoved).toBe(true);
  });
  it('failure without NEWFINALNAME keeps the current file', async () => {
    const ctx = makeContext(env.home, { currentFile: '/x' });
    const r = await runOne('EXECOUTPUT', script('o3.sh', 'echo e1; echo e2; exit 9'), ctx);
    expect(r).toMatchObject({ kind: 'failure', message: '<STATUS>9</STATUS><ERROR>e1\ne2</ERROR>' });
    expect(ctx.currentFile).toBe('/x');
  });
});
