import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import type { Host } from '../../src/model/host.js';
import { TransferMode, type Rule } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { openStore, StoreError, type Store, type TransferTally } from '../../src/store/index.js';
import { tallyTransfers } from '../../src/store/nodb/transfer-filter.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { setStoredRow } from '../helpers/stored-row.js';

const OWNER = 'svc1';

function host(hostId: string, over: Partial<Host> = {}): Host {
  return {
    hostId, address: '127.0.0.1', port: 6666, isSsl: false, hostKey: Buffer.from('5a4b7c6a66065cbb622acefec8c3a302', 'ascii'),
    adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0, ...over,
  };
}

function rule(idRule: string, over: Partial<Rule> = {}): Rule {
  return {
    idRule, hostIds: ['partnerA', 'partnerB'], mode: TransferMode.SENDMODE, recvPath: '/in', sendPath: '/out', archivePath: '/arch', workPath: '/work',
    rPreTasks: [], rPostTasks: [{ type: 'LOG', path: 'received #TRUEFULLPATH# & <done>', delay: 0 }], rErrorTasks: [],
    sPreTasks: [{ type: 'COPY', path: '/tmp/x', delay: 1000 }], sPostTasks: [], sErrorTasks: [], updatedInfo: 0, ...over,
  };
}

const transfer = transferRecord;

describe.each(testDialects())('store repositories on $name', (dialect) => {
  let db: TestDatabase | undefined;
  let store: Store;

  beforeAll(async () => {
    db = await dialect.create();
    if (!db) return;
    store = await openStore(db.settings, { hostId: OWNER });
    await store.initSchema({ hostId: OWNER });
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('initdb creates the tables, own rows and version 3.1.0, and is harmless when repeated', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    expect(await store.isInitialised()).toBe(true);
    expect(await store.schemaVersion()).toBe('3.1.0');
    expect(await store.multipleMonitors.get(OWNER)).toEqual({ hostId: OWNER, countConfig: 0, countHost: 0, countRule: 0 });
    const hc = await db.query<{ others: string; updatedinfo: unknown }>('SELECT OTHERS as others, UPDATEDINFO as updatedinfo FROM HOSTCONFIG');
    expect(hc).toHaveLength(1);
    expect(hc[0]?.others).toBe('<root><version>3.1.0</version></root>');
    await store.initSchema({ hostId: OWNER });
    expect(await db.query('SELECT * FROM MULTIPLEMONITOR')).toHaveLength(1);
  });

  it('hosts: insert, get, duplicate, upsert, list filters, updatedinfo, delete', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    await store.hosts.insert(host('partnerA'));
    await store.hosts.insert(host('partnerA-ssl', { isSsl: true, port: 6667, hostKey: null, adminRole: true }));
    await expect(store.hosts.insert(host('partnerA'))).rejects.toBeInstanceOf(StoreError);
    expect(await store.hosts.get('partnerA')).toEqual(host('partnerA'));
    expect(await store.hosts.get('partnerA-ssl')).toEqual(host('partnerA-ssl', { isSsl: true, port: 6667, hostKey: null, adminRole: true }));
    await store.hosts.upsert(host('partnerA', { address: '10.0.0.1', isActive: false }));
    expect((await store.hosts.get('partnerA'))?.address).toBe('10.0.0.1');
    expect((await store.hosts.list({ isSsl: true })).map((h) => h.hostId)).toEqual(['partnerA-ssl']);
    expect((await store.hosts.list({ hostIdLike: 'partner%' })).length).toBe(2);
    expect((await store.hosts.list({ isActive: false })).map((h) => h.hostId)).toEqual(['partnerA']);
    expect(await store.hosts.setUpdatedInfo('partnerA', UpdatedInfo.TOSUBMIT)).toBe(true);
    expect((await store.hosts.list({ updatedInfo: UpdatedInfo.TOSUBMIT })).map((h) => h.hostId)).toEqual(['partnerA']);
    // HOSTKEY holds the ASCII of the hex text (database.md §4.1).
    const raw = await db.query<{ hostkey: Uint8Array }>("SELECT HOSTKEY as hostkey FROM HOSTS WHERE HOSTID = 'partnerA-ssl' OR HOSTID = 'partnerA' ORDER BY HOSTID");
    expect(Buffer.from(raw[0]!.hostkey).toString('ascii')).toBe('5a4b7c6a66065cbb622acefec8c3a302');
    expect(await store.hosts.delete('partnerA-ssl')).toBe(true);
    expect(await store.hosts.delete('partnerA-ssl')).toBe(false);
    expect(await store.hosts.get('partnerA-ssl')).toBeUndefined();
  });

  it('hosts: upsertMany (loadauth) writes every row in batches, replaces existing ones, the last of a repeated id wins', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    await store.hosts.insert(host('bulk-00007', { address: 'old', port: 1 }));
    const many = Array.from({ length: 1203 }, (_, i) => host(`bulk-${String(i).padStart(5, '0')}`, { port: 1000 + i, isSsl: i % 2 === 0, hostKey: i % 3 === 0 ? null : Buffer.from(`k${i}`, 'ascii') }));
    many.push(host('bulk-00010', { address: 'repeated', port: 42 }));
    await store.transaction((repos) => repos.hosts.upsertMany(many));
    const rows = await store.hosts.list({ hostIdLike: 'bulk-%' });
    expect(rows).toHaveLength(1203);
    expect(rows[7]).toEqual(host('bulk-00007', { port: 1007, isSsl: false, hostKey: Buffer.from('k7', 'ascii') }));
    expect(rows[10]).toMatchObject({ address: 'repeated', port: 42 });
    expect(rows[1202]).toEqual(host('bulk-01202', { port: 2202, isSsl: true, hostKey: Buffer.from('k1202', 'ascii') }));
    expect(rows[1200]?.hostKey).toBeNull();
    await db.query("DELETE FROM HOSTS WHERE HOSTID LIKE 'bulk-%'");
  });

  it('rules: compact XML columns, upsert, refused delete while used', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    await store.rules.insert(rule('send-archive'));
    expect(await store.rules.get('send-archive')).toEqual(rule('send-archive'));
    const rows = await db.query<{ hostids: string; rposttasks: string; rpretasks: string }>("SELECT HOSTIDS as hostids, RPOSTTASKS as rposttasks, RPRETASKS as rpretasks FROM RULES WHERE IDRULE = 'send-archive'");
    expect(rows[0]?.hostids).toBe('<hostids><hostid>partnerA</hostid><hostid>partnerB</hostid></hostids>');
    expect(rows[0]?.rposttasks).toBe('<tasks><task><type>LOG</type><path>received #TRUEFULLPATH# &amp; &lt;done&gt;</path><delay>0</delay></task></tasks>');
    expect(rows[0]?.rpretasks).toBe('<tasks></tasks>');
    await store.rules.upsert(rule('send-archive', { hostIds: [], mode: TransferMode.RECVMD5MODE }));
    const updated = await store.rules.get('send-archive');
    expect(updated?.hostIds).toEqual([]);
    expect(updated?.mode).toBe(TransferMode.RECVMD5MODE);
    await store.rules.insert(rule('other'));
    expect((await store.rules.list()).map((r) => r.idRule)).toEqual(['other', 'send-archive']);
    expect((await store.rules.list({ mode: TransferMode.RECVMD5MODE })).map((r) => r.idRule)).toEqual(['send-archive']);
    // Rows written by the original: unescaped task text, NULL columns.
    await db.query("INSERT INTO RULES (IDRULE, MODETRANS, HOSTIDS, RPOSTTASKS) VALUES ('legacy', 1, NULL, '<tasks> <task><type>exec</type><path>a & b < c</path><delay>5</delay></task> </tasks>')");
    const legacy = await store.rules.get('legacy');
    expect(legacy?.hostIds).toEqual([]);
    expect(legacy?.rPostTasks).toEqual([{ type: 'EXEC', path: 'a & b < c', delay: 5 }]);
    expect(legacy?.recvPath).toBe('');
    await store.runner.insert(transfer(1n, { idRule: 'other' }));
    await expect(store.rules.delete('other')).rejects.toThrow(/still use it/);
    await store.runner.delete({ specialId: 1n, requester: OWNER, requested: 'partnerA', ownerReq: OWNER });
    expect(await store.rules.delete('other')).toBe(true);
  });

  it('runner: bigint ids end to end (negative and beyond 2^53), state changes, key lookups', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    const big = 9007199254740993n; // 2^53 + 1: not representable as a JS number
    const negative = -9223372036854775807n;
    await store.runner.insert(transfer(big));
    await store.runner.insert(transfer(negative, { requested: 'partnerB' }));
    await store.runner.insert(transfer(big, { requester: 'partnerB', requested: OWNER, retrieveMode: false }));
    await expect(store.runner.insert(transfer(big))).rejects.toBeInstanceOf(StoreError);
    const key = { specialId: big, requester: OWNER, requested: 'partnerA', ownerReq: OWNER };
    expect(await store.runner.get(key)).toEqual(transfer(big));
    expect((await store.runner.get({ ...key, specialId: negative, requested: 'partnerB' }))?.specialId).toBe(negative);
    expect((await store.runner.findBySpecialId(OWNER, big)).map((t) => t.requester)).toEqual(['partnerB', OWNER]);
    const stop = new Date(2023, 8, 5, 11, 0, 0, 7);
    expect(await setStoredRow(store.runner, key, {
      globalStep: TaskStep.TRANSFERTASK, globalLastStep: TaskStep.TRANSFERTASK, step: 0, stepStatus: ErrorCode.Running,
      infoStatus: ErrorCode.PreProcessingOk, updatedInfo: UpdatedInfo.RUNNING, stop,
    })).toBe(true);
    expect(await store.runner.updateRank(key, 42)).toBe(true);
    const after = await store.runner.get(key);
    expect(after).toMatchObject({ globalStep: 2, globalLastStep: 2, step: 0, rank: 42, updatedInfo: UpdatedInfo.RUNNING });
    expect(after?.stepStatus.char).toBe('z');
    expect(after?.infoStatus.char).toBe('B');
    expect(after?.stop.getTime()).toBeGreaterThan(stop.getTime() - 1);
    // Stored as the exact 64-bit value and the one-character code (padded CHAR(3) on servers).
    const raw = await db.query<{ id: unknown; s: string }>(`SELECT SPECIALID as id, STEPSTATUS as s FROM RUNNER WHERE REQUESTED = 'partnerA'`);
    expect(BigInt(raw[0]!.id as string)).toBe(big);
    expect(raw[0]!.s.trim()).toBe('z');
    expect(await setStoredRow(store.runner, { ...key, specialId: 5n }, { rank: 1 })).toBe(false);
    const full = { ...transfer(big), isMoved: true, filename: '/in/final.csv', updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk };
    await store.runner.importRows([full]);
    expect(await store.runner.get(key)).toEqual(full);
    await store.runner.importRows([{ ...full, rank: 7 }]);
    expect((await store.runner.get(key))?.rank).toBe(7);
    expect(await store.runner.deleteWhere({ ownerReq: OWNER })).toBe(3);
  });

  it('runner: list filters, ordering, paging, counts, scheduler queries', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    const t0 = new Date(2024, 0, 10, 8, 0, 0, 0);
    const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
    await store.runner.insert(transfer(10n, { start: at(0), stop: at(1), updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.CompleteOk, idRule: 'r1' }));
    await store.runner.insert(transfer(11n, { start: at(5), stop: at(6), updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, requested: 'partnerB', idRule: 'r2', transferInfo: '{"ORIGINALSIZE":-1,"follow":123}' }));
    await store.runner.insert(transfer(12n, { start: at(10), stop: at(10), updatedInfo: UpdatedInfo.TOSUBMIT, transferInfo: 'text {"follow":1234}' }));
    await store.runner.insert(transfer(13n, { start: at(20), stop: at(20), updatedInfo: UpdatedInfo.RUNNING, fileInfo: 'noinfo {"follow":-77}' }));
    await store.runner.insert(transfer(14n, { ownerReq: 'svc2', start: at(0), updatedInfo: UpdatedInfo.TOSUBMIT }));
    await store.runner.insert(transfer(15n, { start: at(2), stop: at(3), updatedInfo: UpdatedInfo.INTERRUPTED, globalLastStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.QueryStillRunning }));
    const ids = (list: TransferRecord[]) => list.map((t) => t.specialId);
    expect(ids(await store.runner.list({ ownerReq: OWNER }))).toEqual([10n, 11n, 12n, 13n, 15n]);
    expect(ids(await store.runner.list({ ownerReq: OWNER }, { orderBy: 'start', descending: true, limit: 2 }))).toEqual([13n, 12n]);
    expect(ids(await store.runner.list({ ownerReq: OWNER }, { orderBy: 'start', limit: 2, offset: 1 }))).toEqual([15n, 11n]);
    expect(ids(await store.runner.list({ ownerReq: OWNER }, { offset: 3 }))).toEqual([13n, 15n]);
    expect(ids(await store.runner.list({ specialIdFrom: 11n, specialIdTo: 12n }))).toEqual([11n, 12n]);
    expect(ids(await store.runner.list({ startFrom: at(5), startTo: at(10) }))).toEqual([11n, 12n]);
    expect(ids(await store.runner.list({ stopTo: at(1) }))).toEqual([10n, 14n]);
    expect(ids(await store.runner.list({ partner: 'partnerB' }))).toEqual([11n]);
    expect(ids(await store.runner.list({ idRule: 'r1' }))).toEqual([10n]);
    expect(ids(await store.runner.list({ followId: 123n }))).toEqual([11n]);
    expect(ids(await store.runner.list({ followId: 1234n }))).toEqual([12n]);
    expect(ids(await store.runner.list({ followId: -77n }))).toEqual([13n]); // FILEINFO, where the Java client writes it
    expect(ids(await store.runner.list({ followId: -7n }))).toEqual([]);
    expect(ids(await store.runner.list({ ownerReq: OWNER, status: { error: true } }))).toEqual([11n, 15n]);
    expect(ids(await store.runner.list({ ownerReq: OWNER, status: { done: true, pending: true } }))).toEqual([10n, 12n]);
    expect(ids(await store.runner.list({ updatedInfo: [UpdatedInfo.RUNNING, UpdatedInfo.DONE] }))).toEqual([10n, 13n]);
    expect(ids(await store.runner.list({ updatedInfo: [] }))).toEqual([]);
    expect(await store.runner.count({ ownerReq: OWNER })).toBe(5);
    expect(await store.runner.count({ ownerReq: OWNER, notRunning: true })).toBe(4);
    // The SNMP counters' grouped count: the same groups as counted in memory over the rows.
    const byKey = (g: TransferTally[]) => g.map((x) => ({ ...x, lastStart: x.lastStart.getTime() })).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
    const tally = await store.runner.tally({ ownerReq: OWNER, startFrom: at(1) }, 'partnerB');
    expect(byKey(tally)).toEqual(byKey(tallyTransfers(await store.runner.list({ ownerReq: OWNER, startFrom: at(1) }), 'partnerB')));
    expect(tally.reduce((n, g) => n + g.count, 0)).toBe(4);
    expect(tally.find((g) => g.inbound)).toEqual({ inbound: true, updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, stepStatus: '-', infoStatus: '-', count: 1, lastStart: at(5) });
    expect(await store.runner.tally({ ownerReq: 'nobody' }, 'partnerB')).toEqual([]);
    expect(ids(await store.runner.listDue(OWNER, at(30), 10))).toEqual([12n]);
    expect(ids(await store.runner.listDue(OWNER, at(9), 10))).toEqual([]);
    expect(await store.runner.markFinishedAsDone(OWNER)).toBe(1); // 15: last step 4, 's' > 'O', status 2
    expect((await store.runner.get({ specialId: 15n, requester: OWNER, requested: 'partnerA', ownerReq: OWNER }))?.updatedInfo).toBe(UpdatedInfo.DONE);
    expect(await store.runner.resetInterrupted(OWNER)).toBe(1); // 13 RUNNING
    expect(ids(await store.runner.list({ ownerReq: OWNER, updatedInfo: [UpdatedInfo.TOSUBMIT] }))).toEqual([12n, 13n]);
    expect(await store.runner.deleteWhere({ ownerReq: 'svc2' })).toBe(1);
    expect(await store.runner.deleteWhere({ ownerReq: OWNER })).toBe(5);
  });

  it('hostconfig, configuration (limits) and multiplemonitor', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    const own = await store.hostConfigs.get(OWNER);
    expect(own?.others).toBe('<root><version>3.1.0</version></root>');
    await store.hostConfigs.upsert({ ...own!, business: '<business><businessid>partnerA</businessid></business>', updatedInfo: 3 });
    expect((await store.hostConfigs.get(OWNER))?.business).toContain('partnerA');
    expect(await store.hostConfigs.setUpdatedInfo(OWNER, UpdatedInfo.NOTUPDATED)).toBe(true);
    expect((await store.hostConfigs.list()).map((c) => [c.hostId, c.updatedInfo])).toEqual([[OWNER, 1]]);
    const limits = { hostId: OWNER, readGlobalLimit: 10_000_000_000, writeGlobalLimit: 0, readSessionLimit: 1000, writeSessionLimit: 2000, delayLimit: 10000, updatedInfo: 0 };
    expect(await store.limits.get(OWNER)).toBeUndefined();
    await store.limits.upsert(limits);
    expect(await store.limits.get(OWNER)).toEqual(limits);
    await store.limits.upsert({ ...limits, delayLimit: 500 });
    expect((await store.limits.list()).map((l) => l.delayLimit)).toEqual([500]);
    expect(await store.limits.setUpdatedInfo(OWNER, UpdatedInfo.TOSUBMIT)).toBe(true);
    expect(await store.limits.delete(OWNER)).toBe(true);
    await store.transaction(async (tx) => {
      const row = await tx.multipleMonitors.getForUpdate(OWNER);
      await tx.multipleMonitors.upsert({ ...row!, countRule: row!.countRule + 2 });
    });
    expect((await store.multipleMonitors.get(OWNER))?.countRule).toBe(2);
  });

  it('transfer ids: sequence values are increasing bigints; minimalSeq restarts them, even negative', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    const a = await store.nextTransferId();
    const b = await store.nextTransferId();
    expect(typeof a).toBe('bigint');
    expect(b).toBeGreaterThan(a);
    expect(a).toBeGreaterThan(BigInt(Date.now() - 3_600_000)); // initial value: epoch ms at initdb + 1
    await store.resetTransferIdSequence(-9223372036854775000n);
    expect(await store.nextTransferId()).toBe(-9223372036854775000n);
    await store.resetTransferIdSequence(9007199254740993n);
    const ids = await Promise.all([1, 2, 3, 4, 5].map(() => store.nextTransferId()));
    expect(new Set(ids).size).toBe(5);
    expect(ids.every((id) => id >= 9007199254740993n)).toBe(true);
    const inTx = await store.transaction((tx) => tx.nextTransferId());
    expect(inTx).toBeGreaterThan(9007199254740993n);
  });

  it('transaction: rolled back when the function throws', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    await expect(store.transaction(async (tx) => {
      await tx.hosts.insert(host('rolled-back'));
      expect(await tx.hosts.get('rolled-back')).toBeDefined();
      throw new Error('abort');
    })).rejects.toThrow('abort');
    expect(await store.hosts.get('rolled-back')).toBeUndefined();
  });

  // The hot RUNNER/RULES/HOSTS statements run from SQL kept per shape (decision 0014): the same
  // shape with other values, other shapes and undefined values behave as freshly built queries.
  it('cached shapes: run each shape with its own values, many times, inside and outside transactions', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    for (let i = 2001n; i <= 2005n; i++) await store.runner.insert(transfer(i, { requested: 'partnerC', filename: `/out/f${i}.dat`, rank: Number(i) }));
    for (let i = 2001n; i <= 2005n; i++) {
      const key = { specialId: i, requester: OWNER, requested: 'partnerC', ownerReq: OWNER };
      expect((await store.runner.get(key))?.filename).toBe(`/out/f${i}.dat`);
      expect(await store.runner.updateRank(key, 100 + Number(i))).toBe(true);
      expect(await store.runner.saveMoves(key, undefined, { step: Number(i) })).toBe(true);
      expect(await store.runner.saveMoves(key, undefined, { isMoved: i % 2n === 0n, filename: `/in/f${i}.dat` })).toBe(true);
    }
    await store.transaction(async (tx) => {
      const key = { specialId: 2003n, requester: OWNER, requested: 'partnerC', ownerReq: OWNER };
      expect(await tx.runner.updateRank(key, 7)).toBe(true);
      expect((await tx.runner.get(key))?.rank).toBe(7);
    });
    for (let i = 2001n; i <= 2005n; i++) {
      const r = await store.runner.get({ specialId: i, requester: OWNER, requested: 'partnerC', ownerReq: OWNER });
      expect(r).toMatchObject({ rank: i === 2003n ? 7 : 100 + Number(i), step: Number(i), updatedInfo: UpdatedInfo.UNKNOWN, isMoved: i % 2n === 0n, filename: `/in/f${i}.dat` });
    }
    expect(await store.runner.get({ specialId: 2099n, requester: OWNER, requested: 'partnerC', ownerReq: OWNER })).toBeUndefined();
    expect(await store.runner.updateRank({ specialId: 2099n, requester: OWNER, requested: 'partnerC', ownerReq: OWNER }, 1)).toBe(false);
  });

  it('cached shapes: an import over an existing row writes every column, and a duplicate insert is still named', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    const rec = transfer(2010n, { requested: 'partnerC' });
    await store.runner.insert(rec);
    await expect(store.runner.insert(rec)).rejects.toThrow(/transfer 2010 .*already exists in RUNNER/);
    for (const fileInfo of ['a', 'b']) {
      const changed = { ...rec, fileInfo, rank: fileInfo === 'a' ? 1 : 2, stepStatus: ErrorCode.CompleteOk };
      await store.runner.importRows([changed]);
      expect(await store.runner.get(rec)).toEqual(changed);
    }
  });

  it('cached shapes: a rule read after it changed gives the new rule (rows are read each time)', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    const base: Rule = { idRule: 'shape-rule', hostIds: [], mode: TransferMode.SENDMODE, recvPath: '', sendPath: '', archivePath: '', workPath: '',
      rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0 };
    await store.rules.upsert({ ...base, sPreTasks: [{ type: 'LOG', path: 'one', delay: 0 }] });
    const first = await store.rules.get('shape-rule');
    expect(first?.sPreTasks).toEqual([{ type: 'LOG', path: 'one', delay: 0 }]);
    first!.sPreTasks.push({ type: 'EXEC', path: 'mutated by a caller', delay: 1 });
    first!.sPreTasks[0]!.path = 'mutated';
    expect((await store.rules.get('shape-rule'))?.sPreTasks).toEqual([{ type: 'LOG', path: 'one', delay: 0 }]);
    await store.rules.upsert({ ...base, sPreTasks: [{ type: 'LOG', path: 'two', delay: 5 }], hostIds: ['b'] });
    expect(await store.rules.get('shape-rule')).toMatchObject({ hostIds: ['b'], sPreTasks: [{ type: 'LOG', path: 'two', delay: 5 }] });
    expect(await store.rules.get('nope')).toBeUndefined();
  });
});
