import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode, type Rule, type RuleTask } from '../../src/model/rule.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import { BUILTIN_TASK_TYPES, S3_TASK_TYPES, validateRuleTasks } from '../../src/tasks/registry.js';
import { runTaskList, sideOf, tasksFor } from '../../src/tasks/runner.js';
import { failure, success, warning } from '../../src/tasks/task.js';
import { makeContext, makeHome } from './helpers.js';

let env: ReturnType<typeof makeHome>;
beforeEach(() => { env = makeHome(); });
afterEach(() => env.cleanup());

const t = (type: string, path = '', delay = 0): RuleTask => ({ type, path, delay });

function rule(over: Partial<Rule> = {}): Rule {
  return {
    idRule: 'r1', hostIds: [], mode: TransferMode.SENDMODE, recvPath: '', sendPath: '', archivePath: '', workPath: '',
    rPreTasks: [t('LOG', 'rpre')], rPostTasks: [t('LOG', 'rpost')], rErrorTasks: [t('LOG', 'rerr')],
    sPreTasks: [t('LOG', 'spre')], sPostTasks: [t('LOG', 'spost')], sErrorTasks: [t('LOG', 'serr')],
    updatedInfo: 0, ...over,
  };
}

describe('registry', () => {
  it('runs every type name of tasks.md, in any case', () => {
    const reg = createTaskRegistry();
    for (const name of [...BUILTIN_TASK_TYPES, ...S3_TASK_TYPES]) {
      expect(reg.get(name), name).toBeDefined();
      expect(reg.get(name.toLowerCase()), name).toBe(reg.get(name));
    }
    expect(reg.get('NOPE')).toBeUndefined();
  });
  it('keeps every type of tasks.md in a rule, without a warning', () => {
    const reg = createTaskRegistry();
    const all = [...BUILTIN_TASK_TYPES, ...S3_TASK_TYPES].map((type) => t(type.toLowerCase()));
    const r = validateRuleTasks(rule({ sPostTasks: all }), reg);
    expect(r.rule.sPostTasks.map((x) => x.type)).toEqual([...BUILTIN_TASK_TYPES, ...S3_TASK_TYPES]);
    expect(r.warnings).toEqual([]);
  });
  it('drops unknown and EXTENDED types with a warning and upper-cases types', () => {
    const reg = createTaskRegistry();
    const r = validateRuleTasks(rule({ rPreTasks: [t('log', 'a'), t('BOGUS'), t('EXTENDED'), t('')] }), reg);
    expect(r.rule.rPreTasks).toEqual([t('LOG', 'a')]);
    expect(r.warnings).toHaveLength(3);
    expect(r.warnings[0]).toMatch(/BOGUS.*rule "r1".*skipped/);
  });
});

describe('tasksFor / sideOf (tasks.md §2)', () => {
  it('chooses the S lists on the sender, R lists on the receiver', () => {
    const r = rule();
    expect(tasksFor(r, 'sender', 'pre')[0]?.path).toBe('spre');
    expect(tasksFor(r, 'sender', 'post')[0]?.path).toBe('spost');
    expect(tasksFor(r, 'sender', 'error')[0]?.path).toBe('serr');
    expect(tasksFor(r, 'receiver', 'pre')[0]?.path).toBe('rpre');
    expect(tasksFor(r, 'receiver', 'post')[0]?.path).toBe('rpost');
    expect(tasksFor(r, 'receiver', 'error')[0]?.path).toBe('rerr');
  });
  it('derives the side from mode and role', () => {
    for (const m of [1, 3, 5, 7]) {
      expect(sideOf({ mode: m }, true)).toBe('sender');
      expect(sideOf({ mode: m }, false)).toBe('receiver');
    }
    for (const m of [2, 4, 6, 8]) {
      expect(sideOf({ mode: m }, true)).toBe('receiver');
      expect(sideOf({ mode: m }, false)).toBe('sender');
    }
  });
});

describe('runTaskList (tasks.md §3, §7)', () => {
  function registryWith(record: string[]) {
    const reg = createTaskRegistry();
    reg.register('OK', { run: async ({ argument }) => { record.push(argument); return success(argument); } });
    reg.register('WARN', { run: async ({ argument }) => { record.push(argument); return warning(); } });
    reg.register('FAIL', { run: async ({ argument }) => { record.push(argument); return failure('boom ' + argument, ErrorCode.SizeNotAllowed); } });
    reg.register('FAILE', { run: async () => failure('plain') });
    reg.register('THROW', { run: async () => { throw new Error('thrown'); } });
    reg.register('STOP', { run: async () => ({ kind: 'success', warning: true, stopChain: true }) });
    reg.register('DELAY', { run: async ({ delay }) => success(String(delay)) });
    return reg;
  }
  it('runs in order; a warning continues and sets W', async () => {
    const seen: string[] = [];
    const ctx = makeContext(env.home);
    const out = await runTaskList([t('OK', 'a'), t('WARN', 'b'), t('OK', 'c')], ctx, { registry: registryWith(seen) });
    expect(out.status).toBe('success');
    expect(out.warning).toBe(true);
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(ctx.transfer!.infoStatus).toBe(ErrorCode.Warning);
    expect(out.data).toBe('c');
  });
  it('stops at the first failure and reports its code', async () => {
    const seen: string[] = [];
    const ctx = makeContext(env.home);
    const out = await runTaskList([t('OK', 'a'), t('FAIL', 'b'), t('OK', 'c')], ctx, { registry: registryWith(seen) });
    expect(out).toMatchObject({ status: 'failure', code: ErrorCode.SizeNotAllowed, message: 'boom b', index: 1 });
    expect(seen).toEqual(['a', 'b']);
    expect(ctx.transfer!.infoStatus).toBe(ErrorCode.SizeNotAllowed);
  });
  it('uses ExternalOp for failures without code and for thrown errors', async () => {
    const ctx = makeContext(env.home);
    expect((await runTaskList([t('FAILE')], ctx, { registry: registryWith([]) })).code).toBe(ErrorCode.ExternalOp);
    const thrown = await runTaskList([t('THROW')], ctx, { registry: registryWith([]) });
    expect(thrown).toMatchObject({ status: 'failure', code: ErrorCode.ExternalOp });
    expect(thrown.message).toMatch(/thrown/);
  });
  it('stops silently after an accepted reschedule', async () => {
    const seen: string[] = [];
    const out = await runTaskList([t('STOP'), t('OK', 'never')], makeContext(env.home), { registry: registryWith(seen) });
    expect(out.status).toBe('rescheduled');
    expect(seen).toEqual([]);
  });
  it('skips unknown types with a warning, starts at startIndex, reports progress and keeps alive', async () => {
    const seen: string[] = [];
    const steps: number[] = [];
    let alive = 0;
    const ctx = makeContext(env.home, { engine: { keepAlive: () => { alive++; } } });
    const out = await runTaskList([t('OK', 'a'), t('BOGUS'), t('ok', 'c')], ctx, { registry: registryWith(seen), startIndex: 1, onTaskStart: (i) => { steps.push(i); } });
    expect(out.status).toBe('success');
    expect(seen).toEqual(['c']);
    expect(steps).toEqual([2]);
    expect(alive).toBe(2);
    expect(ctx.logger.text()).toMatch(/BOGUS.*unknown and skipped/);
  });
  it('a missing delay means the connection timeout', async () => {
    const ctx = makeContext(env.home, { options: { defaultTimeoutMs: 12340 } });
    const out = await runTaskList([t('DELAY', '', Number.NaN)], ctx, { registry: registryWith([]) });
    expect(out.data).toBe('12340');
  });
});
