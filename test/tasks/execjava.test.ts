import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ErrorCode } from '../../src/model/error-code.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import { fileDigest } from '../../src/tasks/builtin-plugins.js';
import { loadExtendTaskFactories, loadTaskPlugin } from '../../src/tasks/plugins.js';
import { readInfoMap } from '../../src/tasks/transfer-info.js';
import { waitFor } from '../helpers/wait.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

const DIGEST = 'org.waarp.openr66.context.task.javatask.AddDigestJavaTask';

function withFile(content = 'hello') {
  const file = join(env.home, 'in', 'f.txt');
  writeFileSync(file, content);
  return makeContext(env.home, { currentFile: file });
}

describe('EXECJAVA built-in plug-ins', () => {
  it('AddDigestJavaTask prepends the digest to the information, adds it to the map and saves', async () => {
    const ctx = withFile();
    let saved = 0;
    ctx.engine = { records: { save: async () => { saved++; } } };
    const r = await runOne('EXECJAVA', `${DIGEST} -digest SHA256`, ctx);
    const hex = createHash('sha256').update('hello').digest('hex');
    expect(r).toEqual({ kind: 'success' });
    expect(ctx.transfer!.fileInfo).toBe(`#${hex}# lot42 extra`);
    expect(readInfoMap(ctx.transfer!.transferInfo)).toMatchObject({ digest: hex, ORIGINALSIZE: 11 });
    expect(saved).toBe(1);
  });
  it('AddDigestJavaTask: default MD5, + format, org.svc prefix', async () => {
    const ctx = withFile();
    await runOne('EXECJAVA', 'org.svc.openr66.context.task.javatask.AddDigestJavaTask -format +md5=#DIGEST#', ctx);
    expect(ctx.transfer!.fileInfo).toBe(`lot42 extra md5=${createHash('md5').update('hello').digest('hex')}`);
  });
  it('AddDigestJavaTask: unknown algorithm status 3, missing file 4, save error 2', async () => {
    const ctx = withFile();
    expect((await runOne('EXECJAVA', `${DIGEST} -digest MD2`, ctx)).kind).toBe('failure');
    ctx.currentFile = join(env.home, 'none');
    const r = await runOne('EXECJAVA', `${DIGEST} -digest MD5`, ctx);
    expect(r).toMatchObject({ kind: 'failure', message: expect.stringContaining('<STATUS>4</STATUS>') });
    const c2 = withFile();
    c2.engine = { records: { save: async () => { throw new Error('db down'); } } };
    expect(await runOne('EXECJAVA', `${DIGEST} -digest MD5`, c2)).toMatchObject({ kind: 'failure', message: expect.stringContaining('<STATUS>2</STATUS>') });
  });
  it('digests: CRC32 and ADLER32', async () => {
    const file = join(env.home, 'd');
    writeFileSync(file, 'Wikipedia');
    expect(await fileDigest(file, 'ADLER32')).toBe('11e60398');
    expect(await fileDigest(file, 'CRC32')).toBe('adaac02e');
  });
  it('AddUuidJavaTask adds a uuid', async () => {
    const ctx = withFile();
    expect((await runOne('EXECJAVA', 'org.waarp.openr66.context.task.javatask.AddUuidJavaTask -format -uuid:#UUID#', ctx)).kind).toBe('success');
    const uuid = readInfoMap(ctx.transfer!.transferInfo).uuid as string;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(ctx.transfer!.fileInfo).toBe(`uuid:${uuid} lot42 extra`);
  });
  it('business-only classes fail; the test class succeeds', async () => {
    const ctx = withFile();
    expect((await runOne('EXECJAVA', 'org.waarp.openr66.context.task.ExecBusinessTask x', ctx)).kind).toBe('failure');
    expect((await runOne('EXECJAVA', 'org.svc.openr66.context.task.test.TestExecJavaTask hi', ctx)).kind).toBe('success');
  });
  it('unknown or malformed class names fail with c', async () => {
    const ctx = withFile();
    expect(await runOne('EXECJAVA', 'com.acme.Missing a', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.CommandNotFound });
    expect(await runOne('EXECJAVA', '../evil.js a', ctx)).toMatchObject({ kind: 'failure', code: ErrorCode.CommandNotFound });
  });
});

describe('EXECJAVA contract', () => {
  function registryWith(run: (call: { signal: AbortSignal; args: string; waitForValidation: boolean }) => number | Promise<number>) {
    const reg = createTaskRegistry();
    reg.registerExecJava('t.Plugin', () => ({ run }));
    return reg;
  }
  it('status 1 is a success with a warning log; other is a failure', async () => {
    const ctx = withFile();
    expect(await runOne('EXECJAVA', 't.Plugin x', ctx, 0, registryWith(() => 1))).toEqual({ kind: 'success' });
    expect(ctx.logger.text()).toMatch(/warning/);
    expect((await runOne('EXECJAVA', 't.Plugin x', ctx, 0, registryWith(() => 5))).kind).toBe('failure');
    expect((await runOne('EXECJAVA', 't.Plugin x', ctx, 0, registryWith(() => { throw new Error('x'); }))).kind).toBe('failure');
  });
  it('receives the substituted rest of the argument', async () => {
    let got = '';
    await runOne('EXECJAVA', 't.Plugin #RULE# %s', withFile(), 0, registryWith(({ args }) => { got = args; return 0; }));
    expect(got).toBe('rule1 lot42');
  });
  it('delay > 100 is a time limit (status -1) and aborts the plug-in', async () => {
    let aborted = false;
    const reg = registryWith(({ signal }) => new Promise<number>((res) => { signal.addEventListener('abort', () => { aborted = true; res(0); }); }));
    const r = await runOne('EXECJAVA', 't.Plugin x', withFile(), 150, reg);
    expect(r).toMatchObject({ kind: 'failure', message: expect.stringContaining('<STATUS>-1</STATUS>') });
    expect(aborted).toBe(true);
  });
  it('#NOWAIT# reports success at once', async () => {
    let release: () => void = () => undefined;
    let finished = false;
    let wait = true;
    const reg = registryWith(({ waitForValidation }) => { wait = waitForValidation; return new Promise<number>((res) => { release = () => { finished = true; res(9); }; }); });
    const ctx = withFile();
    expect(await runOne('EXECJAVA', 't.Plugin #NOWAIT# x', ctx, 0, reg)).toEqual({ kind: 'success' });
    expect(wait).toBe(false);
    release();
    await waitFor(() => finished && /status 9/.test(ctx.logger.text()), { what: 'background plug-in' });
  });
});

describe('plug-in modules (docs/plugins)', () => {
  const example = resolve('docs/plugins/stamp-plugin.mjs');
  it('loads the example through extendedtaskfactories and runs both parts', async () => {
    const reg = createTaskRegistry();
    const ctx = withFile();
    await loadExtendTaskFactories(reg, `org.waarp.openr66.s3.taskfactory.S3TaskFactory, com.acme.JavaFactory ,${example}`, env.home, ctx.logger);
    expect(ctx.logger.text()).toMatch(/com.acme.JavaFactory.*ignored/);
    expect(ctx.logger.text()).toMatch(/loaded .*stamp-plugin.mjs \(com.example.svc.StampTask, STAMP\)/);
    expect(await runOne('EXECJAVA', 'com.example.svc.StampTask first #RULE#', ctx, 0, reg)).toEqual({ kind: 'success' });
    expect(await runOne('STAMP', 'second', ctx, 0, reg)).toEqual({ kind: 'success' });
    expect(readFileSync(`${ctx.currentFile}.stamp`, 'utf8')).toMatch(/Z first rule1\n.*Z second\n$/);
  });
  it('a module that cannot be loaded is logged, not fatal; loadTaskPlugin reports it', async () => {
    const reg = createTaskRegistry();
    const ctx = withFile();
    await loadExtendTaskFactories(reg, './missing-plugin.mjs', env.home, ctx.logger);
    expect(ctx.logger.text()).toMatch(/error: .*cannot load plug-in .\/missing-plugin.mjs/);
    const empty = join(env.home, 'empty.mjs');
    writeFileSync(empty, 'export const nothing = 1;\n');
    await expect(loadTaskPlugin(reg, empty, env.home)).rejects.toThrow(/exports neither/);
  });
});
