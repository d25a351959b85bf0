import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PushMonitorConfig } from '../../src/config/index.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { PushExporter } from '../../src/monitor/push/exporter.js';
import { authorizationOf, HttpPushTarget, restUrl } from '../../src/monitor/push/http-target.js';
import { lastDateIn, withLastDate } from '../../src/monitor/push/last-date.js';
import { indexName } from '../../src/monitor/push/payload.js';
import { pushTls } from '../../src/monitor/push/target.js';
import { formatIsoLocal } from '../../src/model/iso-date.js';
import type { Store } from '../../src/store/index.js';
import { silent } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { startReceiver, tempStore, type Receiver } from './push-helpers.js';

const HOST = 'svc1';

function restConfig(port: number, over: Partial<PushMonitorConfig> = {}, scheme = 'http'): PushMonitorConfig {
  return {
    kind: 'rest', url: `${scheme}://127.0.0.1:${port}`, delay: 1000, intervalIncluded: true, transformLongAsString: false, token: 'tok-123', apiKey: undefined,
    endpoint: '/log', keepConnection: true, basicAuthent: undefined, index: undefined, prefix: undefined, username: undefined, password: undefined, compression: true, ...over,
  };
}

function exporter(store: Store, config: PushMonitorConfig, target = new HttpPushTarget(config, HOST, 'X-WAARP', 5000, undefined), maxBatch?: number): PushExporter {
  return new PushExporter({
    hostId: HOST, store: () => store, target, delayMs: config.delay, intervalIncluded: config.intervalIncluded, ...(maxBatch ? { maxBatch } : {}),
    transformLongAsString: config.transformLongAsString, intervalKey: 'waarpMonitor', logger: silent,
  });
}

const lastDate = async (store: Store): Promise<Date | undefined> => lastDateIn((await store.hostConfigs.get(HOST))?.others ?? '');
const results = (body: string): Array<Record<string, unknown>> => (JSON.parse(body) as { results: Array<Record<string, unknown>> }).results;

describe('push monitoring to an HTTP receiver (monitoring.md A.2-A.4, A.6)', () => {
  let db: Awaited<ReturnType<typeof tempStore>>;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await tempStore(HOST);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await db.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.answer = () => ({ status: 200 });
  });

  it('posts the original keys in order, exact 64-bit ids, headers; stores the date only after a 2xx', async () => {
    const stop = new Date(Date.now() - 60_000);
    await db.store.runner.insert(transferRecord(7165003344123456789n, {
      ownerReq: HOST, requester: 'hostb', requested: HOST, stop, globalStep: TaskStep.ALLDONETASK, globalLastStep: TaskStep.ALLDONETASK, step: 0, rank: 16,
      updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk, retrieveMode: false,
      transferInfo: '{"ORIGINALSIZE":1048576,"follow":-9000000000000000001}',
    }));
    await db.store.runner.insert(transferRecord(5n, { ownerReq: 'other', stop }));
    const config = restConfig(receiver.port);
    const ex = exporter(db.store, config);
    expect(await ex.run()).toBe('pushed');
    expect(receiver.received).toHaveLength(1);
    const r = receiver.received[0]!;
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/log');
    expect(r.headers.authorization).toBe('Bearer tok-123');
    expect(r.headers['x-waarp-id']).toBe(HOST);
    expect(r.headers['x-waarp-start']).toBe('');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers.connection).toBe('keep-alive');
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    expect(r.body).toContain('"specialId":7165003344123456789,"followId":-9000000000000000001,"originalSize":1048576,');
    const [item] = results(r.body);
    expect(Object.keys(item!)).toEqual([
      'globalStep', 'globalLastStep', 'step', 'rank', 'status', 'stepStatus', 'errorCode', 'errorMessage', 'originalFilename', 'filename', 'ruleName',
      'blockSize', 'fileInfo', 'transferInfo', 'start', 'stop', 'requested', 'requester', 'retrieve', 'specialId', 'followId', 'originalSize', 'uniqueId', 'hostId', 'waarpMonitor',
    ]);
    expect(item).toMatchObject({
      globalStep: 'ALLDONETASK', status: 'DONE', stepStatus: 'CompleteOk', errorCode: 79, retrieve: false, stop: formatIsoLocal(stop),
      uniqueId: `${HOST}.hostb.${HOST}.7165003344123456789`, hostId: HOST, waarpMonitor: { from: '', index: HOST },
    });
    const stored = await lastDate(db.store);
    expect(stored).toBeDefined();
    expect((item!.waarpMonitor as { to: string }).to).toBe(formatIsoLocal(stored!));
    expect(r.headers['x-waarp-stop']).toBe(formatIsoLocal(stored!));

    // Nothing new: no request, the date moves on. Then a refused push (HTTP 500): the date stays.
    expect(await ex.run()).toBe('empty');
    expect(receiver.received).toHaveLength(1);
    const afterEmpty = await lastDate(db.store);
    expect(afterEmpty!.getTime()).toBeGreaterThanOrEqual(stored!.getTime());
    await db.store.runner.importRows([{ ...(await db.store.runner.get({ specialId: 7165003344123456789n, requester: 'hostb', requested: HOST, ownerReq: HOST }))!, stop: new Date() }]);
    receiver.answer = () => ({ status: 500 });
    expect(await ex.run()).toBe('failed');
    expect((await lastDate(db.store))!.getTime()).toBe(afterEmpty!.getTime());
    receiver.answer = () => ({ status: 201 });
    expect(await ex.run()).toBe('pushed');
    expect(receiver.received[2]!.headers['x-waarp-start']).toBe(formatIsoLocal(afterEmpty!));
    // keep-alive: every post on one connection.
    expect(new Set(receiver.received.map((x) => x.socket)).size).toBe(1);
    await ex.stop();
  });

  it('a receiver down for an hour loses nothing: every record of the outage arrives when it is back', async () => {
    const { store } = db;
    const hourAgo = new Date(Date.now() - 3_600_000);
    const row = await store.hostConfigs.get(HOST);
    await store.hostConfigs.upsert({ ...row!, others: withLastDate(row!.others, hourAgo) });
    for (let i = 0; i < 12; i++) await store.runner.insert(transferRecord(1000n + BigInt(i), { ownerReq: HOST, requester: HOST, requested: 'hostb', stop: new Date(hourAgo.getTime() + i * 300_000 + 1) }));
    const ex = exporter(store, restConfig(receiver.port, { keepConnection: false, transformLongAsString: true, token: undefined, basicAuthent: 'dXNlcjpwdw==' }));
    await receiver.close();
    for (let i = 0; i < 3; i++) expect(await ex.run()).toBe('failed');
    expect((await lastDate(store))!.getTime()).toBe(hourAgo.getTime());
    await receiver.reopen();
    expect(await ex.run()).toBe('pushed');
    const r = receiver.received.at(-1)!;
    expect(r.headers.authorization).toBe('Basic dXNlcjpwdw==');
    expect(r.headers.connection).toBe('close');
    const ids = results(r.body).map((x) => x.specialId);
    for (let i = 0; i < 12; i++) expect(ids).toContain(String(1000 + i));
    expect(results(r.body)[0]!.originalSize).toBe('18391');
    await ex.stop();
  });

  it('a big backlog goes in slices of maxBatch, by STOPTRANS, none skipped nor lost', async () => {
    const { store } = db;
    const base = new Date(Date.now() - 7_200_000);
    const row = await store.hostConfigs.get(HOST);
    await store.hostConfigs.upsert({ ...row!, others: withLastDate(row!.others, base) });
    // 13 records, two of them sharing the STOPTRANS at a slice boundary.
    const stops = [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => new Date(base.getTime() + m * 60_000));
    for (const [i, stop] of stops.entries()) await store.runner.insert(transferRecord(5000n + BigInt(i), { ownerReq: HOST, requester: HOST, requested: 'hostc', stop }));
    const ex = exporter(store, restConfig(receiver.port), undefined, 5);
    const seen: unknown[] = [];
    for (let i = 0; i < 20 && (await ex.run()) === 'pushed'; i++) {
      const items = results(receiver.received.at(-1)!.body);
      expect(items.length).toBeLessThanOrEqual(5);
      seen.push(...items.map((x) => x.specialId));
    }
    for (let i = 0; i < 13; i++) expect(seen).toContain(5000 + i);
    await ex.stop();
  });

  it('TLS: presents the host key store certificate and checks the receiver against the trust store', async () => {
    const dir = db.dir;
    const f = (n: string): string => path.join(dir, n);
    const cert = (name: string, san: string): void => {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.crt`),
        '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`], { stdio: 'pipe' });
    };
    cert('collector', 'IP:127.0.0.1');
    cert('hosta', 'DNS:hosta');
    writeFileSync(f('hosta.pem'), readFileSync(f('hosta.key'), 'utf8') + readFileSync(f('hosta.crt'), 'utf8'));
    const secure = await startReceiver({ key: readFileSync(f('collector.key')), cert: readFileSync(f('collector.crt')), ca: readFileSync(f('hosta.crt')), requestCert: true, rejectUnauthorized: true });
    try {
      await db.store.runner.insert(transferRecord(77n, { ownerReq: HOST, stop: new Date() }));
      const ssl = { keyPath: f('hosta.pem'), keyStorePassword: undefined, keyPassword: undefined, trustKeyPath: f('collector.crt'), trustKeyStorePassword: undefined, trustUseClientAuthenticate: false };
      const config = restConfig(secure.port, {}, 'https');
      const good = exporter(db.store, config, new HttpPushTarget(config, HOST, 'X-SVC', 5000, await pushTls(ssl, false)));
      expect(await good.run()).toBe('pushed');
      expect(secure.received[0]!.clientCn).toBe('hosta');
      expect(secure.received[0]!.headers['x-svc-id']).toBe(HOST);
      await good.stop();
      // A trust store without the collector's certificate: refused, nothing stored.
      await db.store.runner.insert(transferRecord(78n, { ownerReq: HOST, stop: new Date() }));
      const before = await lastDate(db.store);
      const untrusted = exporter(db.store, config, new HttpPushTarget(config, HOST, 'X-SVC', 5000, await pushTls({ ...ssl, trustKeyPath: f('hosta.crt') }, false)));
      expect(await untrusted.run()).toBe('failed');
      expect(await lastDate(db.store)).toEqual(before);
      await untrusted.stop();
    } finally {
      await secure.close();
    }
  });

  it('URL joining, Authorization choice, index names, OTHERS editing', () => {
    expect(restUrl('http://h:8999', '/log').toString()).toBe('http://h:8999/log');
    expect(restUrl('http://h:8999/base/', '//log').toString()).toBe('http://h:8999/base/log');
    expect(() => restUrl('ftp://h', '/')).toThrow(/http:\/\/ or https:\/\//);
    expect(authorizationOf({ basicAuthent: 'b', token: 't', apiKey: 'k' })).toBe('Basic b');
    expect(authorizationOf({ basicAuthent: undefined, token: undefined, apiKey: 'id:key' })).toBe('ApiKey id:key');
    const now = new Date(2024, 2, 15, 14, 22, 33);
    expect(indexName('svcR66-%%WAARPHOST%%-%%DATE%%', 'hostA', now)).toBe('svcr66-hosta-2024.03.15');
    expect(indexName('x-%%DATETIME%%-%%DATEHOUR%%-%%YEARMONTH%%-%%YEAR%%-%%SVCHOST%%', 'H', now)).toBe('x-2024.03.15.14.22-2024.03.15.14-2024.03-2024-h');
    const others = '<root><version>3.1.0</version><seeallid>admin1</seeallid></root>';
    const withDate = withLastDate(others, now);
    expect(withDate).toBe(`<root><version>3.1.0</version><seeallid>admin1</seeallid><lastMonitoringDateTime>${formatIsoLocal(now)}</lastMonitoringDateTime></root>`);
    expect(lastDateIn(withDate)).toEqual(now);
    expect(lastDateIn('<root><lastMonitoringDateTime>garbage</lastMonitoringDateTime></root>')).toBeUndefined();
  });
});
