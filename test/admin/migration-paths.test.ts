// The one reading of a stored FILENAME (fs/stored-path.ts): the original's serverhome-relative
// names become absolute paths, svc's absolute ones stay; the store seen through
// resolvingStoredPaths gives resolved names on every read, inside transactions too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveStoredPath, storedPathRoots } from '../../src/fs/stored-path.js';
import { resolvingStoredPaths } from '../../src/operations/stored-paths.js';
import { openStore, parseJdbcUrl, type Store } from '../../src/store/index.js';
import { transferRecord } from '../helpers/transfer-record.js';

describe('resolveStoredPath', () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'svc-stored-'));
    for (const d of ['in', 'out', 'work', 'arch']) mkdirSync(join(home, d));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const roots = (): ReturnType<typeof storedPathRoots> => storedPathRoots({ serverHome: home, in: join(home, 'in'), out: join(home, 'out'), work: join(home, 'work'), arch: join(home, 'arch') });

  it('takes the original serverhome-relative names below serverhome', () => {
    expect(resolveStoredPath('/work/1693900000200_123_big.bin.r66', roots())).toBe(join(home, 'work', '1693900000200_123_big.bin.r66'));
    expect(resolveStoredPath('/out/sub/report.csv', roots())).toBe(join(home, 'out', 'sub', 'report.csv'));
  });

  it('keeps absolute names of svc, names outside the host directories, relative and empty names', () => {
    expect(resolveStoredPath(join(home, 'in', 'a.txt'), roots())).toBe(join(home, 'in', 'a.txt'));
    expect(resolveStoredPath('/etc/hosts', roots())).toBe('/etc/hosts');
    expect(resolveStoredPath('a.txt', roots())).toBe('a.txt');
    expect(resolveStoredPath('', roots())).toBe('');
  });

  it('keeps an absolute name that exists even when it looks like the original form', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-stored-abs-'));
    try {
      const homeAtRoot = storedPathRoots({ serverHome: '/', in: root, out: '/out', work: '/work', arch: '/arch' });
      writeFileSync(join(root, 'x'), 'x');
      expect(resolveStoredPath(join(root, 'x'), homeAtRoot)).toBe(join(root, 'x'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('resolvingStoredPaths', () => {
  let store: Store;
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-stored-db-'));
    store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${join(dir, 'db.sqlite')}`), { hostId: 'hosta' });
    await store.initSchema({ hostId: 'hosta' });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('resolves FILENAME on get, list, findBySpecialId, listDue and inside a transaction; writes go through', async () => {
    const home = join(dir, 'home');
    const dirs = { serverHome: home, in: join(home, 'in'), out: join(home, 'out'), work: join(home, 'work'), arch: join(home, 'arch') };
    const seen = resolvingStoredPaths(store, dirs as Parameters<typeof resolvingStoredPaths>[1]);
    const rec = transferRecord(7n, { ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', filename: '/work/7_1_f.r66', updatedInfo: 3, start: new Date(0) });
    await seen.runner.insert(rec);
    const want = join(home, 'work', '7_1_f.r66');
    expect((await seen.runner.get(rec))?.filename).toBe(want);
    expect((await seen.runner.list()).map((r) => r.filename)).toEqual([want]);
    expect((await seen.runner.findBySpecialId('hosta', 7n)).map((r) => r.filename)).toEqual([want]);
    expect((await seen.runner.listDue('hosta', new Date(), 10)).map((r) => r.filename)).toEqual([want]);
    expect(await seen.transaction(async (tx) => (await tx.runner.get(rec))?.filename)).toBe(want);
    // The row itself is as the Java host wrote it until a transfer writes it again.
    expect((await store.runner.get(rec))?.filename).toBe('/work/7_1_f.r66');
    expect(await seen.schemaVersion()).toBe('3.1.0');
  });

  it('takes a rule\'s own directories below serverhome too (a Java rule\'s WORKPATH /rulework, RECVPATH /data/partnerA)', async () => {
    const home = join(dir, 'home');
    const dirs = { serverHome: home, in: join(home, 'in'), out: join(home, 'out'), work: join(home, 'work'), arch: join(home, 'arch') };
    await store.rules.upsert({
      idRule: 'own', hostIds: [], mode: 1, recvPath: '/data/partnerA', sendPath: '', archivePath: '', workPath: '/rulework',
      rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0,
    });
    const seen = resolvingStoredPaths(store, dirs as Parameters<typeof resolvingStoredPaths>[1]);
    const partial = transferRecord(8n, { ownerReq: 'hosta', requester: 'hostb', requested: 'hosta', idRule: 'own', filename: '/rulework/8_1_f.r66', updatedInfo: 3, start: new Date(0) });
    const received = transferRecord(9n, { ownerReq: 'hosta', requester: 'hostb', requested: 'hosta', idRule: 'own', filename: '/data/partnerA/g.txt', updatedInfo: 6, start: new Date(0) });
    const other = transferRecord(10n, { ownerReq: 'hosta', requester: 'hostb', requested: 'hosta', idRule: 'unknown', filename: '/rulework/10_1_h.r66', updatedInfo: 6, start: new Date(0) });
    for (const r of [partial, received, other]) await store.runner.insert(r);
    expect((await seen.runner.get(partial))?.filename).toBe(join(home, 'rulework', '8_1_f.r66'));
    expect((await seen.runner.list({}, { orderBy: 'specialId' })).map((r) => r.filename)).toEqual([
      join(home, 'rulework', '8_1_f.r66'), join(home, 'data', 'partnerA', 'g.txt'), '/rulework/10_1_h.r66',
    ]);
    expect(await seen.transaction(async (tx) => (await tx.runner.get(received))?.filename)).toBe(join(home, 'data', 'partnerA', 'g.txt'));
  });
});
