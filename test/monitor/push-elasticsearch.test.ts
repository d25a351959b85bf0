/**
 * Push monitoring to Elasticsearch (monitoring.md A.5) through the official client, against a test
 * server speaking the subset of the bulk API the exporter uses (no Elasticsearch can be installed
 * here): it records the NDJSON, answers as Elasticsearch does (product header, per-item results
 * and per-item errors).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PushMonitorConfig } from '../../src/config/index.js';
import { ElasticsearchPushTarget, esNodes } from '../../src/monitor/push/es-target.js';
import { PushExporter } from '../../src/monitor/push/exporter.js';
import { lastDateIn } from '../../src/monitor/push/last-date.js';
import { indexName } from '../../src/monitor/push/payload.js';
import { silent } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { startReceiver, tempStore, type Received, type Receiver } from './push-helpers.js';

const HOST = 'svc1';

/** Answers a `_bulk` request as Elasticsearch: 200 with `errors` and one result per action. */
function bulkAnswer(refuse: Set<string>) {
  return (r: Received) => {
    const headers = { 'X-Elastic-Product': 'Elasticsearch' };
    if (!r.url.endsWith('/_bulk')) return { status: 404, headers, body: '{"error":"no handler"}' };
    const lines = r.body.split('\n').filter((l) => l !== '');
    const items = [];
    for (let i = 0; i < lines.length; i += 2) {
      const { index } = JSON.parse(lines[i]!) as { index: { _index: string; _id: string } };
      items.push({ index: refuse.has(index._id)
        ? { _index: index._index, _id: index._id, status: 400, error: { type: 'document_parsing_exception', reason: '[1:2] failed to parse field [rank]' } }
        : { _index: index._index, _id: index._id, _version: 1, result: 'created', status: 201 } });
    }
    return { status: 200, headers, body: JSON.stringify({ took: 3, errors: items.some((i) => i.index.status >= 300), items }) };
  };
}

describe('push monitoring to Elasticsearch (bulk API test server)', () => {
  let db: Awaited<ReturnType<typeof tempStore>>;
  let es: Receiver;
  const refuse = new Set<string>();

  beforeAll(async () => {
    db = await tempStore(HOST);
    es = await startReceiver();
    es.answer = bulkAnswer(refuse);
  });
  afterAll(async () => {
    await es.close();
    await db.close();
  });
  beforeEach(() => { es.received.length = 0; });

  function exporterFor(over: Partial<PushMonitorConfig> = {}): PushExporter {
    const config: PushMonitorConfig = {
      kind: 'elasticsearch', url: `http://127.0.0.1:${es.port}`, delay: 1000, intervalIncluded: true, transformLongAsString: false, token: undefined, apiKey: undefined,
      endpoint: undefined, keepConnection: true, basicAuthent: undefined, index: 'svcR66-%%WAARPHOST%%-%%DATE%%', prefix: 'es', username: 'elastic', password: 'pw',
      compression: true, ...over,
    };
    return new PushExporter({
      hostId: HOST, store: () => db.store, target: new ElasticsearchPushTarget(config, HOST, 5000, undefined), delayMs: 1000, intervalIncluded: true,
      transformLongAsString: false, intervalKey: 'waarpMonitor', logger: silent,
    });
  }

  it('one compressed _bulk per run, index from the template, _id = uniqueId; a per-item error retries the whole batch', async () => {
    for (const id of [9007199254740993n, 2n, 3n]) await db.store.runner.insert(transferRecord(id, { ownerReq: HOST, requester: HOST, requested: 'hostb', stop: new Date() }));
    const ex = exporterFor();
    refuse.add(`${HOST}.${HOST}.hostb.2`);
    expect(await ex.run()).toBe('failed');
    expect(es.received).toHaveLength(1);
    expect(lastDateIn((await db.store.hostConfigs.get(HOST))?.others ?? '')).toBeUndefined();
    const first = es.received[0]!;
    expect(first.method).toBe('POST');
    const index = indexName('svcR66-%%WAARPHOST%%-%%DATE%%', HOST, new Date());
    expect(first.url).toBe(`/es/${index}/_bulk`);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.authorization).toBe(`Basic ${Buffer.from('elastic:pw').toString('base64')}`);
    const lines = first.body.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[0]!)).toEqual({ index: { _index: index, _id: `${HOST}.${HOST}.hostb.2` } });
    expect(lines[5]).toContain('"specialId":9007199254740993,');
    expect(JSON.parse(lines[1]!)).toMatchObject({ uniqueId: `${HOST}.${HOST}.hostb.2`, hostId: HOST, waarpMonitor: { from: '', index: HOST } });

    // Next run: the whole batch again (with what changed since), accepted this time.
    refuse.clear();
    expect(await ex.run()).toBe('pushed');
    expect(es.received).toHaveLength(2);
    const ids = es.received[1]!.body.trimEnd().split('\n').filter((_, i) => i % 2 === 0).map((l) => (JSON.parse(l) as { index: { _id: string } }).index._id);
    expect(ids).toEqual([`${HOST}.${HOST}.hostb.2`, `${HOST}.${HOST}.hostb.3`, `${HOST}.${HOST}.hostb.9007199254740993`]);
    expect(lastDateIn((await db.store.hostConfigs.get(HOST))?.others ?? '')).toBeDefined();
    await ex.stop();
  });

  it('token wins over apiKey; no compression when off; several URLs, missing scheme and host', async () => {
    await db.store.runner.insert(transferRecord(10n, { ownerReq: HOST, stop: new Date() }));
    const ex = exporterFor({ token: 'tkn', apiKey: 'id:key', username: undefined, password: undefined, compression: false, prefix: undefined });
    expect(await ex.run()).toBe('pushed');
    const r = es.received[0]!;
    expect(r.headers.authorization).toBe('Bearer tkn');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.url).toMatch(/^\/svcr66-svc1-[\d.]+\/_bulk$/);
    await ex.stop();
    expect(esNodes('https://a:9200, b:9201,:9202', '/p/')).toEqual(['https://a:9200/p', 'http://b:9201/p', 'http://127.0.0.1:9202/p']);
  });
});
