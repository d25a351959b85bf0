// The task families loaded at their first run (src/tasks/index.ts LAZY_TASK_FAMILIES): the type
// names registered up front are exactly those of each module, and a lazy type runs the module's
// own implementation.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BUILTIN_TASK_TYPES, createTaskRegistry, LAZY_TASK_FAMILIES, S3_TASK_TYPES } from '../../src/tasks/index.js';
import { makeContext, makeHome } from './helpers.js';
import { runOne } from './run-one.js';

describe('task families loaded at their first run', () => {
  it.each(Object.entries(LAZY_TASK_FAMILIES))('%s: the listed types are the module\'s own', async (_name, family) => {
    expect([...family.types].sort()).toEqual(Object.keys(await family.load()).sort());
  });

  it('every built-in and S3 type is registered before any family is loaded', () => {
    const registry = createTaskRegistry();
    for (const type of [...BUILTIN_TASK_TYPES, ...S3_TASK_TYPES]) expect(registry.get(type), type).toBeDefined();
  });

  it('a lazy type runs its module\'s task (TRANSCODE converts the file)', async () => {
    const env = makeHome();
    onTestFinished(env.cleanup);
    const file = join(env.home, 'in', 'dos.txt');
    writeFileSync(file, 'a\r\nb\r\n');
    const ctx = makeContext(env.home, { currentFile: file });
    ctx.transfer!.filename = file;
    expect((await runOne('TRANSCODE', '-dos2unix', ctx)).kind).toBe('success');
    expect(readFileSync(file, 'utf8')).toBe('a\nb\n');
  });
});
