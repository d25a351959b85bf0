import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '../../src/model/error-code.js';
import type { TransferSubmission } from '../../src/tasks/context.js';
import { inWindow, parseBound } from '../../src/tasks/reschedule-task.js';
import { readInfoMap } from '../../src/tasks/transfer-info.js';
import { dosToUnix, unixToDos } from '../../src/tasks/transcode-task.js';
import { canMakeUnwritable, makeUnwritable } from '../helpers/unwritable-file.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

function submitting() {
  const submitted: TransferSubmission[] = [];
  const ctx = makeContext(env.home);
  ctx.engine = { transfers: { submit: async (r) => { submitted.push(r); return 99n; } } };
  return { ctx, submitted };
}

describe('TRANSFER', () => {
  it('submits through the engine with the send options', async () => {
    const { ctx, submitted } = submitting();
    ctx.transfer!.transferInfo = '{"follow":-922337203685477123}';
    const r = await runOne('TRANSFER', '-to partner -file #TRUEFULLPATH# -rule r2 -block 1000 -md5 -nolog -logWarn -delay +60000 -info hello %s world', ctx);
    expect(r).toEqual({ kind: 'success', data: '99' });
    expect(submitted[0]).toEqual({
      to: 'partner', file: 'nofile', rule: 'r2', blockSize: 1000, md5: true, noFollow: false, noLog: true, logWarn: true,
      start: new Date(ctx.now!().getTime() + 60000), info: 'hello lot42 world {"follow":-922337203685477123}',
    });
  });
  it('-copyinfo prefixes the current information; -nofollow does not attach the follow id; -id reuses', async () => {
    const { ctx, submitted } = submitting();
    ctx.transfer!.transferInfo = '{"follow":5}';
    await runOne('TRANSFER', '-to p -file f -rule r -copyinfo -info x', ctx);
    await runOne('TRANSFER', '-to p -file f -rule r -nofollow -notlogWarn', ctx);
    await runOne('TRANSFER', '-to p -id -12 -start 20250102030405 -- -md5', ctx);
    expect(submitted.map((s) => s.info)).toEqual(['lot42 extra x', 'noinfo', 'noinfo {"follow":5}']);
    expect(submitted[1]).toMatchObject({ noFollow: true, logWarn: false });
    expect(submitted[2]).toMatchObject({ id: -12n, start: new Date(2025, 0, 2, 3, 4, 5), md5: false });
  });
  it('fails on too few words, missing options, bad values and a refused submission', async () => {
    const { ctx } = submitting();
    expect((await runOne('TRANSFER', '-to p -file f', ctx)).kind).toBe('failure');
    expect((await runOne('TRANSFER', '-file f -rule r -md5', ctx)).kind).toBe('failure');
    expect((await runOne('TRANSFER', '-to p -file f -md5 -nolog', ctx)).kind).toBe('failure');
    expect((await runOne('TRANSFER', '-to p -file f -rule r -block 10', ctx)).kind).toBe('failure');
    expect((await runOne('TRANSFER', '-to p -file f -rule r -start 20250102030405 -delay 5', ctx)).kind).toBe('failure');
    expect((await runOne('TRANSFER', '-to p -file f -rule r -start 2025', ctx)).kind).toBe('failure');
    ctx.engine = { transfers: { submit: async () => { throw new Error('unknown host p'); } } };
    const r = await runOne('TRANSFER', '-to p -file f -rule r', ctx);
    expect(r).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp, message: expect.stringContaining('unknown host p') });
    ctx.engine = {};
    expect((await runOne('TRANSFER', '-to p -file f -rule r', ctx)).kind).toBe('failure');
  });
});

describe('RESTART', () => {
  it('needs a SYSTEM partner and a server', async () => {
    const ctx = makeContext(env.home);
    const delays: number[] = [];
    ctx.engine = { restarter: { restartAfter: (ms) => { delays.push(ms); } } };
    expect((await runOne('RESTART', '', ctx)).kind).toBe('failure');
    ctx.session.partnerIsSystem = true;
    expect(await runOne('RESTART', '', ctx)).toEqual({ kind: 'success' });
    expect(delays).toEqual([1000]);
    ctx.engine = {};
    expect((await runOne('RESTART', '', ctx)).kind).toBe('failure');
  });
});

describe('RESCHEDULE', () => {
  function rescheduling() {
    const ctx = makeContext(env.home, { error: { code: ErrorCode.ConnectionImpossible, message: 'x' } });
    const at: Date[] = [];
    ctx.engine = { rescheduler: { reschedule: async (d) => { at.push(d); } } };
    return { ctx, at };
  }
  const now = new Date(2024, 2, 15, 14, 22, 33);
  it('reschedules at now + delay when the code matches, and stops the chain', async () => {
    const { ctx, at } = rescheduling();
    const r = await runOne('RESCHEDULE', '-delay 3600000 -case T,C', ctx);
    const next = new Date(now.getTime() + 3600000);
    expect(r).toMatchObject({ kind: 'success', warning: true, stopChain: true });
    expect(at).toEqual([next]);
    expect(ctx.transfer!.start).toEqual(next);
    expect(ctx.rescheduled).toBe(true);
    expect(await runOne('RESCHEDULE', '-delay 3600000 -case C', ctx)).toEqual({ kind: 'success', warning: true });
  });
  it('is a warning when refused: few words, other code, no error, missing options', async () => {
    const { ctx, at } = rescheduling();
    expect(await runOne('RESCHEDULE', '-delay 10', ctx)).toEqual({ kind: 'success', warning: true });
    expect(await runOne('RESCHEDULE', '-delay 10 -case T', ctx)).toEqual({ kind: 'success', warning: true });
    expect(await runOne('RESCHEDULE', '-delay 0 -case C', ctx)).toEqual({ kind: 'success', warning: true });
    expect(await runOne('RESCHEDULE', '-delay 10 -count 2', ctx)).toEqual({ kind: 'success', warning: true });
    ctx.error = null;
    expect(await runOne('RESCHEDULE', '-delay 10 -case C', ctx)).toEqual({ kind: 'success', warning: true });
    expect(at).toEqual([]);
  });
  it('parses codes by first character like the original', async () => {
    const { ctx, at } = rescheduling();
    ctx.error = { code: ErrorCode.Shutdown, message: '' };
    await runOne('RESCHEDULE', '-delay 10 -case ServerOverloaded', ctx); // 'S' -> Shutdown
    expect(at).toHaveLength(1);
  });
  it('fails with L on the requested side', async () => {
    const { ctx } = rescheduling();
    ctx.session.isRequester = false;
    expect(await runOne('RESCHEDULE', '-delay 10 -case C', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.LoopSelfRequestedHost });
  });
  it('-count keeps CPTLIMIT/CPTTOTAL and refuses once exhausted, then resets', async () => {
    const { ctx, at } = rescheduling();
    const run = async () => { ctx.rescheduled = false; return runOne('RESCHEDULE', '-delay 10 -case C -count 2', ctx); };
    expect((await run())).toMatchObject({ stopChain: true });
    expect(readInfoMap(ctx.transfer!.transferInfo)).toMatchObject({ CPTLIMIT: 1, CPTTOTAL: 1 });
    expect((await run())).toMatchObject({ stopChain: true });
    expect(readInfoMap(ctx.transfer!.transferInfo)).toMatchObject({ CPTLIMIT: 0, CPTTOTAL: 2 });
    expect(await run()).toEqual({ kind: 'success', warning: true });
    expect(readInfoMap(ctx.transfer!.transferInfo)).toMatchObject({ CPTLIMIT: 2, CPTTOTAL: 3 });
    expect(at).toHaveLength(2);
  });
  it('-notbetween and -between windows', async () => {
    const { ctx, at } = rescheduling();
    // now 14:22:33, +1h = 15:22:33: inside 07:00-19:00
    expect(await runOne('RESCHEDULE', '-delay 3600000 -case C -notbetween H7:m0:S0;H19:m0:S0', ctx)).toEqual({ kind: 'success', warning: true });
    expect(await runOne('RESCHEDULE', '-delay 3600000 -case C -between H19:m0:S0;H7:m0:S0', ctx)).toEqual({ kind: 'success', warning: true });
    expect(await runOne('RESCHEDULE', '-delay 3600000 -case C -between H19;H7 -between H15;H16', ctx)).toMatchObject({ stopChain: true });
    expect(at).toHaveLength(1);
  });
  it('window evaluation: crossing midnight and daily recurrence', () => {
    const at = (h: number, d = 15) => new Date(2024, 2, d, h, 0, 0);
    const night = [parseBound('H22:m0:S0'), parseBound('H6:m0:S0')] as const;
    expect(inWindow(at(23), at(14), ...night)).toBe(true);
    expect(inWindow(at(3, 16), at(14), ...night)).toBe(true);
    expect(inWindow(at(3), at(2), ...night)).toBe(true);
    expect(inWindow(at(12), at(2), ...night)).toBe(false);
    expect(inWindow(at(12), at(10), parseBound('H+11'), parseBound('H13'))).toBe(true);
    // no valid item: the bound is "now" (10:00)
    expect(inWindow(at(12), at(10), parseBound('H=11:bad'), parseBound('H13'))).toBe(true);
    expect(inWindow(at(9), at(10), parseBound('H=11:bad'), parseBound('H13'))).toBe(false);
    // month is 0-based: M2 = March
    expect(inWindow(at(12), at(10), parseBound('M2:D15:H0'), parseBound('M2:D16:H0'))).toBe(true);
  });
  it('fails when the engine cannot reschedule', async () => {
    const { ctx } = rescheduling();
    ctx.engine = { rescheduler: { reschedule: async () => { throw new Error('db'); } } };
    expect((await runOne('RESCHEDULE', '-delay 10 -case C', ctx)).kind).toBe('failure');
    ctx.engine = {};
    expect((await runOne('RESCHEDULE', '-delay 10 -case C', ctx)).kind).toBe('failure');
  });
});

describe('LOG', () => {
  it('delay 1 logs at the level named by the first word, else WARN', async () => {
    const ctx = makeContext(env.home);
    await runOne('LOG', 'info transfer #TRANSFERID# %s', ctx, 1);
    await runOne('LOG', 'something', ctx, 1);
    await runOne('LOG', 'not shown', ctx, 0);
    await runOne('LOG', 'not shown', ctx, 7);
    expect(ctx.logger.lines.map((l) => [l.level, l.msg.split(' - ')[0]])).toEqual([['info', 'info transfer 1234567890123456789 lot42'], ['warn', 'something']]);
  });
  it('delay 2 appends the words to the file named last, without newline; 3 also logs', async () => {
    const ctx = makeContext(env.home);
    const file = join(env.home, 'log.txt');
    writeFileSync(file, '>');
    expect(await runOne('LOG', `ERROR #RULE# failed ${file}`, ctx, 2)).toEqual({ kind: 'success' });
    expect(await runOne('LOG', `again ${file}`, ctx, 3)).toEqual({ kind: 'success' });
    expect(readFileSync(file, 'utf8')).toBe('>ERROR rule1 failed  again  ');
    expect(ctx.logger.lines).toHaveLength(1);
  });
  it('an unwritable file falls back to the log with a warning, never fails', async () => {
    const ctx = makeContext(env.home);
    const r = await runOne('LOG', `text ${join(env.home, 'no', 'dir', 'f')}`, ctx, 2);
    expect(r).toEqual({ kind: 'success', warning: true });
    expect(ctx.logger.text()).toMatch(/warn: text - /);
  });
});

describe('TRANSCODE', () => {
  function withFile(content: Buffer | string) {
    const file = join(env.home, 'in', 't.txt');
    writeFileSync(file, content);
    return { file, ctx: makeContext(env.home, { currentFile: file }) };
  }
  it('re-encodes into <file>.transcode, -extension, or -newfile; current file unchanged', async () => {
    const { file, ctx } = withFile(Buffer.from('caf\xe9 \xa4', 'latin1'));
    expect(await runOne('TRANSCODE', '-from ISO-8859-15 -to UTF-8', ctx)).toMatchObject({ kind: 'success' });
    expect(readFileSync(`${file}.transcode`, 'utf8')).toBe('café €');
    await runOne('TRANSCODE', '-FROM ISO-8859-15 -To UTF-16LE -extension u16', ctx);
    expect(readFileSync(`${file}.u16`).toString('utf16le')).toBe('café €');
    await runOne('TRANSCODE', '-from ISO-8859-15 -to IBM850 -newfile #OUTPATH#/dos.txt -unix2dos', ctx);
    expect(readFileSync(join(env.home, 'out', 'dos.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0x82, 0x20, 0x3f]) /* no euro sign in IBM850 */);
    expect(ctx.currentFile).toBe(file);
  });
  it('converts line endings in place without charsets', async () => {
    const { file, ctx } = withFile('a\nb\r\nc\n');
    expect((await runOne('TRANSCODE', '-unix2dos', ctx)).kind).toBe('success');
    expect(readFileSync(file, 'utf8')).toBe('a\r\nb\r\nc\r\n');
    expect((await runOne('TRANSCODE', '-dos2unix', ctx)).kind).toBe('success');
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\n');
    expect(unixToDos(Buffer.from('\n\r\n'))).toEqual(Buffer.from('\r\n\r\n'));
    expect(dosToUnix(Buffer.from('\r\r\n\xff\r', 'latin1'))).toEqual(Buffer.from('\r\n\xff\r', 'latin1'));
  });
  it('fails on both line options, too few arguments, an unknown charset or an unreadable file', async () => {
    const { ctx } = withFile('x');
    expect(await runOne('TRANSCODE', '-dos2unix -unix2dos', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.Warning });
    expect(await runOne('TRANSCODE', '-from UTF-8', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.Warning });
    expect(await runOne('TRANSCODE', '-from UTF-8 -to NOPE-42', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.ExternalOp });
    ctx.currentFile = join(env.home, 'missing');
    expect(await runOne('TRANSCODE', '-dos2unix', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.Internal });
    expect((await runOne('TRANSCODE', '-from UTF-8 -to UTF-16LE', ctx)).kind).toBe('failure');
  });
  it.skipIf(!canMakeUnwritable())('fails when the output file cannot be written', async () => {
    const { ctx } = withFile('x\n');
    const out = join(env.home, 'ro.txt');
    writeFileSync(out, '');
    const undo = makeUnwritable(out);
    try {
      expect((await runOne('TRANSCODE', `-from UTF-8 -to UTF-8 -newfile ${out} -unix2dos`, ctx)).kind).toBe('failure');
      expect(readFileSync(out, 'utf8')).toBe('');
    } finally {
      undo();
    }
  });
});
