import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { GuidGenerator, openNoDatabaseStore, runnersFromXml, runnerToXml, StoreError } from '../../src/store/index.js';
import { setStoredRow } from '../helpers/stored-row.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-nodb-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function transfer(specialId: bigint, over: Partial<TransferRecord> = {}): TransferRecord {
  return {
    specialId, requester: 'client1', requested: 'server1', ownerReq: 'client1', globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK,
    step: -1, rank: 0, blockSize: 65536, mode: TransferMode.SENDMODE, updatedInfo: UpdatedInfo.UNKNOWN, stepStatus: ErrorCode.Unknown,
    infoStatus: ErrorCode.Unknown, retrieveMode: true, isMoved: false, start: new Date(2023, 8, 5, 10, 12, 1, 500), stop: new Date(2023, 8, 5, 10, 12, 3, 21),
    idRule: 'send', filename: '/out/a & b <c>.txt', originalName: 'a.txt', fileInfo: 'monthly {"follow":123456}', transferInfo: '{"ORIGINALSIZE":12}', ...over,
  };
}

describe('runner XML', () => {
  it('writes the history format (database.md §10.1) and reads it back', () => {
    const xml = runnerToXml(transfer(1693900000123n, { stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk }), { indent: '' });
    expect(xml).toContain('<specialid>1693900000123</specialid>');
    expect(xml).toContain('<starttrans>2023-09-05 10:12:01.5</starttrans>');
    expect(xml).toContain('<stoptrans>2023-09-05 10:12:03.021</stoptrans>');
    expect(xml).toContain('<stepstatus>O</stepstatus>');
    expect(xml).toContain('<filename>/out/a &amp; b &lt;c&gt;.txt</filename>');
    expect(xml).not.toContain('transferinfo');
    const [back] = runnersFromXml(`<taskrunners>${xml}</taskrunners>`);
    expect(back).toEqual({ ...transfer(1693900000123n, { stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk }), transferInfo: '{}' });
  });

  it('accepts epoch-millisecond timestamps and an XML declaration', () => {
    const [r] = runnersFromXml('<?xml version="1.0"?><taskrunners><runner><specialid>-5</specialid><starttrans>1000</starttrans></runner></taskrunners>');
    expect(r?.specialId).toBe(-5n);
    expect(r?.start.getTime()).toBe(1000);
  });
});

describe('GuidGenerator', () => {
  it('packs pid nibble, 40 bits of time and a 20-bit counter; ids may be negative and are unique', () => {
    const g = new GuidGenerator(0xa5, () => 1_693_900_000_123);
    const a = g.next();
    const b = g.next();
    expect(b - a).toBe(1n);
    expect(a).toBeLessThan(0n); // nibble 0xa sets the sign bit
    expect((BigInt.asUintN(64, a) >> 60n)).toBe(0xan);
    expect((BigInt.asUintN(64, a) >> 20n) & ((1n << 40n) - 1n)).toBe(1_693_900_000_123n & ((1n << 40n) - 1n));
  });
});

describe('no-database store', () => {
  it('serves hosts and rules given in memory, limits from the XML section and transfers as files', async () => {
    const arch = join(dir, 'arch');
    const store = await openNoDatabaseStore({
      hostId: 'client1', authentFile: undefined, identity: { cryptoKey: Buffer.alloc(8) },
      directories: { serverHome: dir, arch, conf: join(dir, 'conf') },
      limits: { globalLimit: 1000, sessionLimit: 100, delayLimit: 10000, timeoutCon: 30000 },
      hosts: [{ hostId: 'server1', address: '127.0.0.1', port: 6666, isSsl: false, hostKey: Buffer.from('ab'), adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0 }],
      rules: [],
    });
    expect(store.dialect).toBe('none');
    expect((await store.hosts.get('server1'))?.hostKey).toEqual(Buffer.from('ab'));
    expect(await store.limits.get('client1')).toMatchObject({ readGlobalLimit: 1000, writeSessionLimit: 100, delayLimit: 10000 });
    expect(await store.schemaVersion()).toBe('3.1.0');
    const id = await store.nextTransferId();
    const t = transfer(id);
    await store.runner.insert(t);
    await expect(store.runner.insert(t)).rejects.toBeInstanceOf(StoreError);
    expect(readdirSync(arch)).toEqual([`client1_server1_${id}_singlerunner.xml`]);
    expect(readFileSync(join(arch, `client1_server1_${id}_singlerunner.xml`), 'utf8')).toMatch(/^<taskrunners>\n {2}<runner>/);
    expect(await store.runner.get(t)).toEqual(t);
    expect(await setStoredRow(store.runner, t, { globalStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk })).toBe(true);
    expect((await store.runner.get(t))?.updatedInfo).toBe(UpdatedInfo.DONE);
    await store.runner.insert(transfer(id + 1n, { updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(2000, 0, 1) }));
    expect((await store.runner.listDue('client1', new Date(), 5)).map((r) => r.specialId)).toEqual([id + 1n]);
    expect((await store.runner.list({ status: { done: true } })).map((r) => r.specialId)).toEqual([id]);
    // The follow id is searched in FILEINFO (where the Java client writes it) as in TRANSFERINFO.
    expect(await store.runner.count({ followId: 123456n })).toBe(2);
    expect(await store.runner.count({ followId: 12345n })).toBe(0);
    writeFileSync(join(arch, 'unrelated.xml'), '<x/>');
    expect(await store.runner.deleteWhere({ ownerReq: 'client1' })).toBe(2);
    expect(readdirSync(arch)).toEqual(['unrelated.xml']);
    // Batches (masend): distinct ids, one file per row, all or nothing.
    const ids = await store.transaction((tx) => tx.nextTransferIds(3));
    expect(new Set(ids).size).toBe(3);
    await store.runner.insertMany(ids.map((i) => transfer(i)));
    expect(readdirSync(arch).filter((n) => n.endsWith('_singlerunner.xml'))).toHaveLength(3);
    const more = await store.nextTransferIds(2);
    await expect(store.runner.insertMany([transfer(more[0]!), transfer(ids[1]!), transfer(more[1]!)])).rejects.toBeInstanceOf(StoreError);
    expect(await store.runner.get(transfer(more[0]!))).toBeUndefined();
    expect(await store.runner.deleteWhere({ ownerReq: 'client1' })).toBe(3);
    await store.close();
  });

  it('reads partners and rules from the configuration files when not given', async () => {
    const conf = join(dir, 'conf2');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(conf);
    writeFileSync(join(conf, 'a.rule.xml'), '<rule><idrule>send</idrule><mode>1</mode><rposttasks><tasks><task><type>LOG</type><path>x</path><delay>0</delay></task></tasks></rposttasks></rule>');
    const store = await openNoDatabaseStore({
      hostId: 'client1', authentFile: undefined, identity: { cryptoKey: Buffer.alloc(8) },
      directories: { serverHome: dir, arch: join(dir, 'arch2'), conf },
      limits: { globalLimit: 0, sessionLimit: 0, delayLimit: 10000, timeoutCon: 30000 },
    });
    expect((await store.rules.list()).map((r) => [r.idRule, r.rPostTasks.length])).toEqual([['send', 1]]);
    expect(await store.hosts.list()).toEqual([]);
  });
});
