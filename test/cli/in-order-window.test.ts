// msend's window of files in flight (decision 0052): started in order, at most `width` at once,
// results in item order whatever order the jobs end in, nothing started after a stopping result.
import { describe, expect, it } from 'vitest';
import { runInOrderWindow } from '../../src/cli/r66client/in-order-window.js';

/** A job per item that ends when the test says so. */
function controlled(): { started: number[]; finish(i: number, value?: string): void; job(i: number): Promise<string> } {
  const resolvers = new Map<number, (v: string) => void>();
  const started: number[] = [];
  return {
    started,
    finish: (i, value = `r${i}`) => resolvers.get(i)?.(value),
    job: (i) => {
      started.push(i);
      return new Promise<string>((resolve) => resolvers.set(i, resolve));
    },
  };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setImmediate(r));
  expect(check()).toBe(true);
}

describe('runInOrderWindow', () => {
  it('keeps at most width jobs running, starts them in order and returns results in item order', async () => {
    const c = controlled();
    const done = runInOrderWindow(5, { width: () => 2, job: c.job, stopsAfter: () => false });
    await until(() => c.started.length === 2);
    expect(c.started).toEqual([0, 1]);
    c.finish(1);
    await until(() => c.started.length === 3);
    expect(c.started).toEqual([0, 1, 2]);
    for (const i of [2, 0, 4, 3]) {
      c.finish(i);
      await new Promise((r) => setImmediate(r));
      if (i === 0) await until(() => c.started.length === 5);
    }
    expect(await done).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
  });

  it('widens when width() says so (msend: one file alone until the partner took one)', async () => {
    const c = controlled();
    let accepted = false;
    const done = runInOrderWindow(4, { width: () => (accepted ? 3 : 1), job: c.job, stopsAfter: () => false });
    await until(() => c.started.length === 1);
    accepted = true;
    c.finish(0);
    await until(() => c.started.length === 4);
    for (const i of [3, 2, 1]) c.finish(i);
    expect(await done).toEqual(['r0', 'r1', 'r2', 'r3']);
  });

  it('starts nothing after a stopping result; the jobs already running end and are kept', async () => {
    const c = controlled();
    const done = runInOrderWindow(6, { width: () => 2, job: c.job, stopsAfter: (r) => r === 'stop' });
    await until(() => c.started.length === 2);
    c.finish(0, 'stop');
    await new Promise((r) => setImmediate(r));
    c.finish(1);
    expect(await done).toEqual(['stop', 'r1']);
    expect(c.started).toEqual([0, 1]);
  });

  it('rejects with a job\'s error once the running jobs have ended', async () => {
    const c = controlled();
    const done = runInOrderWindow(3, { width: () => 2, job: (i) => (i === 0 ? Promise.reject(new Error('boom')) : c.job(i)), stopsAfter: () => false });
    const outcome = done.then(() => 'resolved', (e: Error) => e.message);
    await until(() => c.started.length === 1);
    c.finish(1);
    expect(await outcome).toBe('boom');
    expect(c.started).toEqual([1]);
  });
});
