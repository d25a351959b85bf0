import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { MetricsEndpoint } from '../../src/monitor/http-endpoint.js';
import { HostMetrics } from '../../src/monitor/metrics.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, type TestHost } from '../helpers/hosts.js';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((p) => l.includes(p)));
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('Prometheus metrics from the engine events', () => {
  let a: TestHost;
  let b: TestHost;
  let ma: HostMetrics;
  let mb: HostMetrics;
  let endpoint: MetricsEndpoint;
  let queries = 0;

  beforeAll(async () => {
    ({ a, b } = await makeHostPair());
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
    // Known to hosta only: hostb refuses the request, hosta's transfer ends in error.
    await addRules([a], rule('nob', TransferMode.SENDMODE));
    const sources = (h: TestHost) => ({
      engine: () => h.engine, outgoingConnections: () => h.pool.size, incomingConnections: () => h.listener.openConnections,
      queued: () => { queries++; return h.store.runner.count({ ownerReq: h.id, updatedInfo: [3] }); }, queueRefreshMs: 60_000,
    });
    ma = new HostMetrics(sources(a), 'hosta');
    mb = new HostMetrics(sources(b), 'hostb');
    ma.attach();
    mb.attach();
    endpoint = new MetricsEndpoint({
      port: 0, address: '127.0.0.1', metricsPath: '/metrics', healthPath: '/health', metrics: () => ma.text(), contentType: ma.registry.contentType,
      health: { database: async () => { await a.store.hostConfigs.get('hosta'); }, listeners: () => ({ ports: a.listener.ports, expected: 1 }) },
    });
    await endpoint.start();
  });
  afterAll(async () => {
    await endpoint.stop();
    await closeHosts(a, b);
  });

  it('counts transfers, bytes, durations and errors by rule, state and code; scrapes do not query RUNNER', async () => {
    const sizes = [1000, 300_000];
    for (const [i, size] of sizes.entries()) await writeFile(path.join(a.dirs.out, `m${i}.bin`), patternBytes(size, i + 1));
    for (const i of sizes.keys()) expect((await a.engine.transfer({ partner: 'hostb', rule: 'send', file: `m${i}.bin`, blockSize: 8192 })).code).toBe(ErrorCode.CompleteOk);
    const failed = await a.engine.transfer({ partner: 'hostb', rule: 'nob', file: 'm0.bin' });
    expect(failed.code).not.toBe(ErrorCode.CompleteOk);

    const res = await fetch(`http://127.0.0.1:${endpoint.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(sample(text, 'svc_r66_transfers_started_total', 'rule="send",role="sender"')).toBe(2);
    expect(sample(text, 'svc_r66_transfers_ended_total', 'rule="send",status="DONE"')).toBe(2);
    expect(sample(text, 'svc_r66_transfer_bytes_total', 'direction="out"')).toBe(301_000);
    expect(sample(text, 'svc_r66_transfer_duration_seconds_count', 'rule="send",status="DONE"')).toBe(2);
    expect(sample(text, 'svc_r66_transfer_errors_total', `code="${failed.code.char}"`)).toBe(1);
    expect(sample(text, 'svc_r66_transfers_running', 'rule="send"')).toBe(0);
    expect(sample(text, 'svc_r66_connections_open', 'direction="outgoing"')).toBe(1);
    expect(sample(text, 'svc_r66_scheduler_queue', 'hostid="hosta"')).toBe(0);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    const received = await mb.text();
    expect(sample(received, 'svc_r66_transfer_bytes_total', 'direction="in"')).toBe(301_000);
    expect(sample(received, 'svc_r66_transfers_started_total', 'role="receiver"')).toBe(2);
    expect(sample(received, 'svc_r66_connections_open', 'direction="incoming"')).toBe(1);

    // Ten more scrapes: the queue count stays the one made at the first (refresh every minute here).
    const before = queries;
    for (let i = 0; i < 10; i++) await ma.text();
    expect(queries).toBe(before);
  });

  it('health: 200 while the database answers and the listener is bound, 503 naming what is down', async () => {
    const up = await fetch(`http://127.0.0.1:${endpoint.port}/health`);
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: 'up', database: 'up', listeners: { status: 'up', ports: a.listener.ports } });
    expect((await fetch(`http://127.0.0.1:${endpoint.port}/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${endpoint.port}/metrics`, { method: 'POST' })).status).toBe(405);
    await a.listener.stop();
    const down = await fetch(`http://127.0.0.1:${endpoint.port}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'down', database: 'up', listeners: { status: 'down' } });
  });
});

describe('scrape cache', () => {
  const sources = (scrapeCacheMs?: number) => ({
    engine: () => undefined, outgoingConnections: () => 0, queued: async () => 0, queueRefreshMs: 60_000, ...(scrapeCacheMs !== undefined ? { scrapeCacheMs } : {}),
  });

  it('a scrape within scrapeCacheMs of the previous one gets the same text; without it each scrape collects', async () => {
    const cached = new HostMetrics(sources(60_000), 'hosta');
    const first = await cached.text();
    expect(await cached.text()).toBe(first);
    expect(cached.text()).toBe(cached.text());
    const fresh = new HostMetrics(sources(), 'hosta');
    expect(fresh.text()).not.toBe(fresh.text());
    for (const m of [cached, fresh]) m.registry.clear();
  });
});
