/**
 * Push monitoring to Elasticsearch 7.x/8.x/9.x and OpenSearch 1.x/2.x/3.x (monitoring.md A.5,
 * issue 36) with one configuration, against test servers that enforce each product's documented
 * header rules (push-search-server.ts: no real Elasticsearch or OpenSearch can be installed here).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PushMonitorConfig } from '../../src/config/index.js';
import { ElasticsearchPushTarget, esAuthorization, esNodes, indexNameProblem } from '../../src/monitor/push/es-target.js';
import { PushExporter } from '../../src/monitor/push/exporter.js';
import { lastDateIn } from '../../src/monitor/push/last-date.js';
import { indexName } from '../../src/monitor/push/payload.js';
import { parseSearchService, type SearchService } from '../../src/monitor/push/search-service.js';
import { pushTls } from '../../src/monitor/push/target.js';
import type { Store } from '../../src/store/index.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { tempStore } from './push-helpers.js';
import { selfSignedCa, startSearchServer, type SearchServer, type SearchServerOptions } from './push-search-server.js';

const HOST = 'svc1';
const TEMPLATE = 'svcR66-%%WAARPHOST%%-%%DATE%%';

function esConfig(url: string, over: Partial<PushMonitorConfig> = {}): PushMonitorConfig {
  return {
    kind: 'elasticsearch', url, delay: 1000, intervalIncluded: true, transformLongAsString: false, token: undefined, apiKey: undefined,
    endpoint: undefined, keepConnection: true, basicAuthent: undefined, index: TEMPLATE, prefix: undefined, username: undefined, password: undefined,
    compression: true, ...over,
  };
}

/** A pino logger whose lines the test reads. */
function capture(): { logger: Logger; lines: Array<{ level: number; msg: string } & Record<string, unknown>> } {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  return { lines, logger: pino({ level: 'info' }, { write: (s: string) => { lines.push(JSON.parse(s) as (typeof lines)[number]); } }) };
}

describe('push monitoring to Elasticsearch and OpenSearch (test servers with the products\' header rules)', () => {
  let db: Awaited<ReturnType<typeof tempStore>>;
  let servers: SearchServer[] = [];
  let exporters: PushExporter[] = [];
  let log: ReturnType<typeof capture>;

  beforeEach(async () => {
    db = await tempStore(HOST);
    log = capture();
  });
  afterEach(async () => {
    for (const ex of exporters) await ex.stop();
    for (const s of servers) await s.close();
    servers = [];
    exporters = [];
    await db.close();
  });

  async function server(o: SearchServerOptions): Promise<SearchServer> {
    const s = await startSearchServer(o);
    servers.push(s);
    return s;
  }

  function exporter(config: PushMonitorConfig, extra: { service?: SearchService; tls?: Awaited<ReturnType<typeof pushTls>> } = {}): PushExporter {
    const target = new ElasticsearchPushTarget(config, { hostId: HOST, timeoutMs: 5000, tls: extra.tls, service: extra.service, logger: log.logger });
    const ex = new PushExporter({ hostId: HOST, store: () => db.store, target, delayMs: 1000, intervalIncluded: true, transformLongAsString: false, intervalKey: 'waarpMonitor', logger: log.logger });
    exporters.push(ex);
    return ex;
  }

  const records = async (store: Store, ids: bigint[]): Promise<void> => {
    for (const id of ids) await store.runner.insert(transferRecord(id, { ownerReq: HOST, requester: HOST, requested: 'hostb', stop: new Date() }));
  };
  const uid = (id: bigint): string => `${HOST}.${HOST}.hostb.${id}`;
  const lastDate = async (): Promise<Date | undefined> => lastDateIn((await db.store.hostConfigs.get(HOST))?.others ?? '');

  const PRODUCTS: SearchServerOptions[] = [
    { product: 'elasticsearch', version: '7.10.2' },
    { product: 'elasticsearch', version: '7.17.25' },
    { product: 'elasticsearch', version: '8.15.3' },
    { product: 'elasticsearch', version: '9.1.5' },
    { product: 'opensearch', version: '1.3.19' },
    { product: 'opensearch', version: '2.17.1' },
    { product: 'opensearch', version: '3.0.0' },
  ];

  it.each(PRODUCTS)('$product $version: detected with GET /, then one plain NDJSON _bulk per run indexes every record', async (o) => {
    const es = await server(o);
    await records(db.store, [9007199254740993n, 2n, 3n]);
    const ex = exporter(esConfig(`http://127.0.0.1:${es.port}`));
    expect(await ex.run()).toBe('pushed');
    expect(es.received.map((r) => `${r.method} ${r.url} ${r.status}`)).toEqual([
      'GET / 200', `POST /${indexName(TEMPLATE, HOST, new Date())}/_bulk 200`,
    ]);
    const bulk = es.received[1]!;
    expect(bulk.headers['content-type']).toBe('application/x-ndjson');
    expect(bulk.headers.accept).toBe('application/json');
    expect(bulk.headers['content-encoding']).toBe('gzip');
    expect(bulk.body).not.toContain('_type');
    const index = indexName(TEMPLATE, HOST, new Date());
    const docs = es.indices.get(index)!;
    expect([...docs.keys()].sort()).toEqual([uid(2n), uid(3n), uid(9007199254740993n)]);
    expect(docs.get(uid(2n))).toMatchObject({ uniqueId: uid(2n), hostId: HOST, waarpMonitor: { from: '', index: HOST } });
    expect(bulk.body).toContain('"specialId":9007199254740993,');
    expect(await lastDate()).toBeDefined();
    const detected = log.lines.find((l) => l.msg.startsWith('push monitoring: '));
    expect(detected?.msg).toBe(`push monitoring: ${o.product === 'opensearch' ? 'OpenSearch' : 'Elasticsearch'} ${o.version}`);

    // The next run: the version is known, only the bulk request; a record pushed again is replaced.
    await records(db.store, [4n]);
    expect(await ex.run()).toBe('pushed');
    expect(es.received.slice(2).map((r) => r.method)).toEqual(['POST']);
    expect(docs.has(uid(4n))).toBe(true);
  });

  it('the test servers refuse what the official 9.x client sends, as the products do', async () => {
    const cases: Array<[SearchServerOptions, string, number, RegExp]> = [
      [{ product: 'elasticsearch', version: '8.15.3' }, '9', 400, /Accept version must be either version 8 or 7, but found 9/],
      [{ product: 'elasticsearch', version: '9.1.5' }, '7', 400, /Accept version must be either version 9 or 8, but found 7/],
      [{ product: 'elasticsearch', version: '7.17.25' }, '9', 406, /Content-Type header \[application\/vnd.elasticsearch\+x-ndjson; compatible-with=9\] is not supported/],
      [{ product: 'opensearch', version: '2.17.1' }, '9', 406, /is not supported/],
      [{ product: 'opensearch', version: '2.17.1' }, '7', 406, /is not supported/],
      [{ product: 'elasticsearch', version: '8.15.3' }, '8', 200, /"errors":false/],
      [{ product: 'elasticsearch', version: '9.1.5' }, '8', 200, /"errors":false/],
      [{ product: 'elasticsearch', version: '7.17.25' }, '7', 200, /"errors":false/],
    ];
    for (const [o, v, status, text] of cases) {
      const es = await server(o);
      const answer = await fetch(`http://127.0.0.1:${es.port}/x/_bulk`, {
        method: 'POST', body: '{"index":{"_id":"1"}}\n{"a":1}\n',
        headers: { 'Content-Type': `application/vnd.elasticsearch+x-ndjson; compatible-with=${v}`, Accept: `application/vnd.elasticsearch+json; compatible-with=${v}` },
      });
      expect(`${o.product} ${o.version} compatible-with=${v}: ${answer.status}`).toBe(`${o.product} ${o.version} compatible-with=${v}: ${status}`);
      expect(await answer.text()).toMatch(text);
      // The product header: Elasticsearch from 7.14 on, never OpenSearch (the 9.x client refuses its answers).
      expect(answer.headers.get('x-elastic-product')).toBe(o.product === 'elasticsearch' ? 'Elasticsearch' : null);
    }
    const es = await server({ product: 'elasticsearch', version: '8.15.3' });
    const mismatch = await fetch(`http://127.0.0.1:${es.port}/x/_bulk`, { method: 'POST', body: '{"index":{}}\n{}\n', headers: { 'Content-Type': 'application/vnd.elasticsearch+x-ndjson; compatible-with=8', Accept: 'application/json' } });
    expect(mismatch.status).toBe(400);
    const text = await fetch(`http://127.0.0.1:${es.port}/x/_bulk`, { method: 'POST', body: '{"index":{}}\n{}\n', headers: { 'Content-Type': 'text/plain' } });
    expect(text.status).toBe(406);
    const unterminated = await fetch(`http://127.0.0.1:${es.port}/x/_bulk`, { method: 'POST', body: '{"index":{}}\n{}', headers: { 'Content-Type': 'application/json' } });
    expect(await unterminated.text()).toMatch(/must be terminated by a newline/);
  });

  it('item errors: a 429 fails the run (whole batch again next run); a 400 document is reported and not pushed again', async () => {
    const es = await server({ product: 'elasticsearch', version: '8.15.3' });
    await records(db.store, [1n, 2n, 3n]);
    const ex = exporter(esConfig(`http://127.0.0.1:${es.port}`, { compression: false }));
    es.failItem.set(uid(2n), { status: 429, type: 'es_rejected_execution_exception', reason: 'rejected execution of coordinating operation', once: true });
    es.failItem.set(uid(3n), { status: 400, type: 'document_parsing_exception', reason: '[1:120] failed to parse field [rank] of type [date]' });
    expect(await ex.run()).toBe('failed');
    expect(await lastDate()).toBeUndefined();
    const failure = log.lines.find((l) => l.msg.startsWith('push monitoring failed'));
    expect(failure?.err).toMatch(/1 of 3 documents not indexed for now \(first: svc1\.svc1\.hostb\.2 429 es_rejected_execution_exception/);

    expect(await ex.run()).toBe('pushed');
    expect(await lastDate()).toBeDefined();
    const docs = es.indices.get(indexName(TEMPLATE, HOST, new Date()))!;
    expect([...docs.keys()].sort()).toEqual([uid(1n), uid(2n)]);
    const refused = log.lines.find((l) => l.msg.includes('refused documents'));
    expect(refused).toMatchObject({ level: 40, refused: 1, documents: 3, first: [{ id: uid(3n), status: 400, type: 'document_parsing_exception' }] });
    // The refused record is not in the next run (its window is behind `last`).
    await records(db.store, [5n]);
    expect(await ex.run()).toBe('pushed');
    expect(es.received.at(-1)!.body).not.toContain(uid(3n));
  });

  it('authentication: basic, API key (id:key encoded, or already encoded), bearer; wrong credentials fail with 401', async () => {
    const es = await server({ product: 'elasticsearch', version: '9.1.5', users: { svc_writer: 'pässword' }, apiKeys: { VuaCfGcBCdbkQm: 'ui2lp2axTNmsyakw9tvNnw' }, tokens: ['dGhpcyBpcyBub3QgYSByZWFs'] });
    const url = `http://127.0.0.1:${es.port}`;
    const encoded = Buffer.from('VuaCfGcBCdbkQm:ui2lp2axTNmsyakw9tvNnw').toString('base64');
    const configs: Array<[Partial<PushMonitorConfig>, string]> = [
      [{ username: 'svc_writer', password: 'pässword' }, `Basic ${Buffer.from('svc_writer:pässword').toString('base64')}`],
      [{ apiKey: 'VuaCfGcBCdbkQm:ui2lp2axTNmsyakw9tvNnw' }, `ApiKey ${encoded}`],
      [{ apiKey: encoded }, `ApiKey ${encoded}`],
      [{ token: 'dGhpcyBpcyBub3QgYSByZWFs', apiKey: 'ignored:key' }, 'Bearer dGhpcyBpcyBub3QgYSByZWFs'],
    ];
    let id = 100n;
    for (const [over, header] of configs) {
      await records(db.store, [id++]);
      es.received.length = 0;
      const ex = exporter(esConfig(url, over));
      expect(await ex.run()).toBe('pushed');
      expect(es.received.map((r) => [r.status, r.headers.authorization])).toEqual([[200, header], [200, header]]);
    }
    await records(db.store, [id]);
    const before = await lastDate();
    expect(await exporter(esConfig(url, { username: 'svc_writer', password: 'wrong' })).run()).toBe('failed');
    expect(await lastDate()).toEqual(before);
    expect(log.lines.find((l) => l.msg.startsWith('push monitoring failed'))?.err).toMatch(/GET \/ answered 401 \(security_exception: unable to authenticate/);
    expect(JSON.stringify(log.lines)).not.toContain('wrong');
  });

  it('GET / refused for want of the monitor privilege: a clear error, and <searchservice> pushes without it', async () => {
    const es = await server({ product: 'elasticsearch', version: '8.15.3', users: { svc_writer: 'pw' }, monitorPrivilege: false });
    await records(db.store, [7n]);
    const config = esConfig(`http://127.0.0.1:${es.port}`, { username: 'svc_writer', password: 'pw' });
    expect(await exporter(config).run()).toBe('failed');
    expect(log.lines.find((l) => l.msg.startsWith('push monitoring failed'))?.err).toMatch(/answered 403 .*monitor cluster privilege.*<monitoring><searchservice>/);
    es.received.length = 0;
    const service = parseSearchService('elasticsearch-8') as SearchService;
    expect(await exporter(config, { service }).run()).toBe('pushed');
    expect(es.received.map((r) => r.method)).toEqual(['POST']);
  });

  it('TLS with the service\'s own CA in the trust store (as Elasticsearch 8 sets itself up); refused without it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-es-tls-'));
    try {
      const { ca, key, cert } = selfSignedCa(dir);
      const es = await server({ product: 'elasticsearch', version: '8.15.3', tls: { key, cert }, users: { elastic: 'changeme' } });
      await records(db.store, [11n]);
      const config = esConfig(`https://127.0.0.1:${es.port}`, { username: 'elastic', password: 'changeme' });
      const ssl = { keyPath: undefined, keyStorePassword: undefined, keyPassword: undefined, trustKeyPath: ca, trustKeyStorePassword: undefined, trustUseClientAuthenticate: false };
      expect(await exporter(config, { tls: await pushTls(null, false) }).run()).toBe('failed');
      expect(log.lines.find((l) => l.msg.startsWith('push monitoring failed'))?.err).toMatch(/no answer .*certificate/i);
      expect(await exporter(config, { tls: await pushTls(ssl, false) }).run()).toBe('pushed');
      expect(es.indices.get(indexName(TEMPLATE, HOST, new Date()))?.has(uid(11n))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('versions: 6.x and a server that is not a search service are refused clearly; a newer major is pushed to with a warning', async () => {
    const old = await server({ product: 'elasticsearch', version: '6.8.23' });
    await records(db.store, [21n]);
    expect(await exporter(esConfig(`http://127.0.0.1:${old.port}`)).run()).toBe('failed');
    expect(log.lines.find((l) => l.msg.startsWith('push monitoring failed'))?.err).toMatch(/Elasticsearch 6\.8\.23 is not supported \(Elasticsearch 7\.x or later/);
    expect(old.received.map((r) => r.method)).toEqual(['GET']);

    const newer = await server({ product: 'elasticsearch', version: '10.0.0' });
    expect(await exporter(esConfig(`http://127.0.0.1:${newer.port}`)).run()).toBe('pushed');
    expect(log.lines.some((l) => l.level === 40 && /Elasticsearch 10\.0\.0 is newer than the versions tested/.test(l.msg))).toBe(true);
    expect(() => exporter(esConfig('http://127.0.0.1:1'), { service: parseSearchService('opensearch-0') as SearchService })).toThrow(/OpenSearch 0 is not supported/);
    expect(parseSearchService('solr-9')).toBeInstanceOf(Error);
    expect(parseSearchService('auto')).toBeUndefined();
    expect(parseSearchService('OpenSearch 2.17')).toMatchObject({ product: 'opensearch', major: 2, version: '2.17' });
  });

  it('the version is read again after a failed push: a cluster upgraded from 8 to 9 during an outage', async () => {
    const v8 = await server({ product: 'elasticsearch', version: '8.15.3' });
    const port = v8.port;
    await records(db.store, [41n]);
    const ex = exporter(esConfig(`http://127.0.0.1:${port}`));
    expect(await ex.run()).toBe('pushed');
    await v8.close();
    servers = servers.filter((s) => s !== v8);
    await records(db.store, [42n]);
    expect(await ex.run()).toBe('failed');
    const v9 = await server({ product: 'elasticsearch', version: '9.1.5', port });
    expect(await ex.run()).toBe('pushed');
    expect(v9.received.map((r) => r.method)).toEqual(['GET', 'POST']);
    expect(v9.indices.get(indexName(TEMPLATE, HOST, new Date()))?.has(uid(42n))).toBe(true);
    expect(log.lines.filter((l) => l.msg.startsWith('push monitoring: Elasticsearch')).map((l) => l.msg)).toEqual([
      'push monitoring: Elasticsearch 8.15.3', 'push monitoring: Elasticsearch 9.1.5',
    ]);
  });

  it('several URLs: a node that does not answer is skipped; prefix path; no compression when off', async () => {
    const es = await server({ product: 'opensearch', version: '2.17.1' });
    await records(db.store, [31n]);
    const dead = await server({ product: 'opensearch', version: '2.17.1' });
    const deadPort = dead.port;
    await dead.close();
    servers = servers.filter((s) => s !== dead);
    const ex = exporter(esConfig(`http://127.0.0.1:${deadPort}, 127.0.0.1:${es.port}`, { prefix: '/', compression: false }));
    expect(await ex.run()).toBe('pushed');
    expect(es.received[1]!.headers['content-encoding']).toBeUndefined();
    expect(esNodes('https://a:9200, b:9201,:9202', '/p/')).toEqual(['https://a:9200/p', 'http://b:9201/p', 'http://127.0.0.1:9202/p']);
  });

  it('index names Elasticsearch and OpenSearch refuse are configuration errors; Authorization choice', () => {
    expect(indexNameProblem('svcr66-hosta-2024.03.15')).toBeUndefined();
    expect(indexNameProblem('_x')).toMatch(/starts with/);
    expect(indexNameProblem('a#b')).toMatch(/"#"/);
    expect(() => exporter(esConfig('http://127.0.0.1:1', { index: 'r66 %%DATE%%' }))).toThrow(/pushMonitor\/index: .*refuse \(contains " "\)/);
    expect(esAuthorization({ token: undefined, apiKey: undefined, username: 'u', password: 'p' })).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(esAuthorization({ token: undefined, apiKey: undefined, username: undefined, password: undefined })).toBeUndefined();
  });
});
