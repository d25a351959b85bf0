// The scan's shortcuts over many sent files (docs/filewatcher.md, "Performance"): above
// DONE_CHECKS_PER_SCAN sent files each is stat'ed in one scan out of ceil(n / DONE_CHECKS_PER_SCAN),
// so a sent file that is modified is still seen (within that many scans) and goes through the
// stability check again; a removed file is forgotten at the next scan; with ignoreAlreadyUsed a
// sent file is not stat'ed at all, and its removal is still seen. Real files, one real watcher; no
// order is given (none is due).
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatcherConfig } from '../../src/watch/config.js';
import { newItem, type FileItem } from '../../src/watch/item.js';
import type { WatchOrders } from '../../src/watch/watch-orders.js';
import { DONE_CHECKS_PER_SCAN, FileWatcher } from '../../src/watch/watcher.js';

const N = DONE_CHECKS_PER_SCAN + 2000; // a stride of 2
const name = (i: number): string => `f${String(i).padStart(6, '0')}.dat`;

const noOrder = (): Promise<never> => Promise.reject(new Error('no order expected'));
const orders: WatchOrders = { newIds: noOrder, state: noOrder, submit: noOrder, run: noOrder, forget: () => Promise.resolve(), close: () => Promise.resolve() };

describe(`scan over ${N} sent files`, () => {
  let root: string;
  let dir: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-watch-stride-'));
    dir = join(root, 'spool');
    mkdirSync(dir);
    for (let i = 0; i < N; i++) writeFileSync(join(dir, name(i)), 'sent');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function watcherOver(ignoreAlreadyUsed: boolean): FileWatcher {
    const config: WatcherConfig = {
      name: 'stride', to: ['hostb'], rule: 'send', statusFile: join(root, `status-${ignoreAlreadyUsed}.json`), directories: [dir], regex: undefined, recursive: false,
      elapse: 1000, submit: false, parallel: true, limitParallel: 0, info: 'noinfo', md5: false, block: 65536, noLog: false, waarpHosts: [],
      elapseWaarp: 5000, minimalSize: 0, ignoreAlreadyUsed, stopFile: join(root, 'stop'), logWarn: true,
    };
    const w = new FileWatcher(config, { orders, logger: pino({ level: 'silent' }) });
    const items: Array<[string, FileItem]> = [];
    for (let i = 0; i < N; i++) {
      const file = join(dir, name(i));
      const st = statSync(file);
      items.push([file, { ...newItem(file), size: st.size, lastTime: Math.trunc(st.mtimeMs), hash: 'x', used: true, status: 'DONE', specialId: BigInt(i + 1) }]);
    }
    w.load(items);
    return w;
  }

  it('a modified sent file is seen within the stride, a removed one at the next scan', async () => {
    const w = watcherOver(false);
    await w.scan(); // the first scan after a start looks at every file
    expect(w.state.size).toBe(N);
    const changed = join(dir, name(777));
    const removed = join(dir, name(778));
    appendFileSync(changed, ' and rewritten');
    rmSync(removed);
    await w.scan();
    expect(w.state.has(removed)).toBe(false);
    let scans = 1;
    while (w.state.get(changed)!.status === 'DONE' && scans < 2) {
      await w.scan();
      scans++;
    }
    expect(w.state.get(changed)).toMatchObject({ status: 'CHANGING', size: 'sent and rewritten'.length });
    expect(w.state.size).toBe(N - 1);
    writeFileSync(removed, 'sent');
  });

  it('with ignoreAlreadyUsed a sent file is left alone, its removal is seen at the next scan', async () => {
    const w = watcherOver(true);
    await w.scan();
    const changed = join(dir, name(100));
    const removed = join(dir, name(101));
    appendFileSync(changed, ' once more');
    rmSync(removed);
    await w.scan();
    await w.scan();
    expect(w.state.has(removed)).toBe(false);
    expect(w.state.get(changed)).toMatchObject({ status: 'DONE', used: true });
    writeFileSync(removed, 'sent');
    await w.scan();
    // Back under the same name: a new file.
    expect(w.state.get(removed)).toMatchObject({ status: 'START', used: false });
  });
});
