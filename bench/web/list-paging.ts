/**
 * Web UI bench (issue 23): the administration area's transfer list paging through a RUNNER table of
 * one million rows on SQLite, each page served (HTTPS, logged-in session, whole HTML page) in under
 * 100 ms. Pages at several depths are fetched by following the list's own `before` cursor, plus the
 * monitoring area's `/all` page. Prints every timing and the verdict.
 *
 * Not part of `npm run bench` (it imports src/, which dist/bench cannot): compile and run it with
 *
 *   npx tsc -p tsconfig.json --outDir dist/web-bench --noEmit false --declaration false --incremental false && \
 *     node dist/web-bench/bench/web/list-paging.js [--rows N] [--keep DIR]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import type { ServerConfig } from '../../src/config/index.js';
import { memoryBandwidth, type RestServices } from '../../src/http/index.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import { loadTlsMaterial } from '../../src/net/tls.js';
import { TransferOrders } from '../../src/operations/index.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { createAdminApp } from '../../src/web/admin/app.js';
import { writeSelfSignedPem } from '../../src/web/admin/self-signed.js';
import { LoginGuard, SessionStore } from '../../src/web/admin/sessions.js';
import { LiveBroadcaster } from '../../src/web/live.js';
import { createMonitorApp } from '../../src/web/monitor-app.js';
import { StatusDocuments } from '../../src/web/status-doc.js';

const TARGET_MS = 100;
const HOST = 'benchhost';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const rows = Number(arg('--rows') ?? 1_000_000);
const dir = arg('--keep') ?? mkdtempSync(join(tmpdir(), 'svc-bench-web-'));
mkdirSync(join(dir, 'arch'), { recursive: true });
const log = (line: string): void => void process.stderr.write(`[bench web] ${line}\n`);

const STATUSES: Array<[UpdatedInfo, TaskStep, typeof ErrorCode.CompleteOk]> = [
  [UpdatedInfo.DONE, TaskStep.ALLDONETASK, ErrorCode.CompleteOk], [UpdatedInfo.DONE, TaskStep.ALLDONETASK, ErrorCode.CompleteOk],
  [UpdatedInfo.DONE, TaskStep.ALLDONETASK, ErrorCode.CompleteOk], [UpdatedInfo.INERROR, TaskStep.ERRORTASK, ErrorCode.FileNotFound],
  [UpdatedInfo.TOSUBMIT, TaskStep.NOTASK, ErrorCode.Unknown], [UpdatedInfo.RUNNING, TaskStep.TRANSFERTASK, ErrorCode.Running],
];

function row(i: number, t0: number): TransferRecord {
  const [updatedInfo, globalStep, status] = STATUSES[i % STATUSES.length]!;
  const start = new Date(t0 + i * 1000);
  return {
    specialId: BigInt(i + 1), requester: HOST, requested: `partner${i % 50}`, ownerReq: HOST, globalStep, globalLastStep: globalStep, step: -1, rank: i % 1000,
    blockSize: 65536, mode: TransferMode.SENDMODE, updatedInfo, stepStatus: status, infoStatus: status, retrieveMode: true, isMoved: false, start, stop: start,
    idRule: i % 2 === 0 ? 'send' : 'recv', filename: `/out/file-${i}.dat`, originalName: `file-${i}.dat`, fileInfo: 'noinfo', transferInfo: `{"ORIGINALSIZE":${i * 17},"follow":${i + 1}}`,
  };
}

// One kept-alive connection, as a browser keeps it: the TLS handshake is not part of a page.
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** The page's round trip, and its time on the server (Server-Timing). */
function get(url: string, ca: string, cookie = ''): Promise<{ ms: number; server: number; status: number; body: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent, headers: { cookie } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const server = Number(/dur=([\d.]+)/.exec(String(res.headers['server-timing']))?.[1] ?? NaN);
      res.on('end', () => resolve({ ms: performance.now() - t, server, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const settings = parseJdbcUrl('sqlite', `jdbc:sqlite:${join(dir, 'bench.sqlite')}`);
  const store = await openStore(settings, { hostId: HOST });
  await store.initSchema({ hostId: HOST });
  const have = await store.runner.count({ ownerReq: HOST });
  const t0 = Date.UTC(2020, 0, 1);
  if (have < rows) {
    const started = performance.now();
    const BATCH = 5000;
    for (let i = have; i < rows; i += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, rows - i) }, (_, k) => row(i + k, t0));
      await store.transaction(async (tx) => tx.runner.insertMany(batch));
      if ((i / BATCH) % 40 === 0) log(`${i + batch.length} rows`);
    }
    log(`${rows - have} rows inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const pem = join(dir, 'admin.pem');
  await writeSelfSignedPem(pem);
  const ca = readFileSync(pem, 'utf8');
  const config = {
    hostId: HOST, sslHostId: undefined, identity: { cryptoKey: Buffer.alloc(8) }, roles: [], server: { adminName: 'admin', adminPassword: 'bench', pastLimit: 86_400_000, minimalDelay: 5000 },
    directories: { arch: join(dir, 'arch') }, limits: { blockSize: 65536, runLimit: 1000, timeoutCon: 30000, globalLimit: 0, sessionLimit: 0, delayLimit: 1000, delayCommand: 1000, delayRetry: 1000 },
  } as unknown as ServerConfig;
  const rest: RestServices = {
    config, store, log: pino({ level: 'warn' }), bandwidth: memoryBandwidth(config), startedAt: new Date(), now: () => new Date(),
    fileMonitors: { list: () => [] }, counters: { networkConnections: () => 0, inBandwidth: () => 0, outBandwidth: () => 0 },
    shutdown: () => undefined, blockRequests: () => undefined,
  };
  const services = { rest, events: () => undefined };
  const live = new LiveBroadcaster();
  const sessions = new SessionStore(HOST);
  const session = sessions.create('admin', 127);
  const orders = new TransferOrders({ store, hostId: HOST, directories: config.directories, blockSize: 65536 });
  const admin = await createAdminApp({ services, orders, blocked: { value: false }, sessions, guards: { user: new LoginGuard(), address: new LoginGuard() }, live }, (await loadTlsMaterial({ keyPath: pem })).server);
  await admin.listen({ port: 0, host: '127.0.0.1' });
  const monitor = await createMonitorApp({ services, live, status: new StatusDocuments(rest) });
  await monitor.listen({ port: 0, host: '127.0.0.1' });
  const base = `https://127.0.0.1:${(admin.server.address() as { port: number }).port}`;
  const cookie = `${sessions.cookieName}=${session.id}`;
  const timings: Array<[string, number, number]> = [];
  // Each page is fetched REPEAT times; the median is the figure (a shared machine stalls single runs).
  const REPEAT = 5;
  const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const measure = async (name: string, fetchOnce: () => Promise<{ ms: number; server: number }>): Promise<void> => {
    const runs = [];
    for (let i = 0; i < REPEAT; i++) runs.push(await fetchOnce());
    timings.push([name, median(runs.map((r) => r.ms)), median(runs.map((r) => r.server))]);
  };
  // Warm-up (first statement compilations), not counted.
  await get(`${base}/Listing.html`, ca, cookie);
  // The first pages by following "next", then pages at depths given by a cursor into the table.
  let url = `${base}/Listing.html`;
  for (let p = 1; p <= 5; p++) {
    const first = await get(url, ca, cookie);
    if (first.status !== 200) throw new Error(`page ${p}: HTTP ${first.status}`);
    const here = url;
    await measure(`page ${p}`, () => get(here, ca, cookie));
    const next = /href="([^"]+)" rel="next"/.exec(first.body)?.[1];
    if (next === undefined) break;
    url = `${base}/${next.replace(/&amp;/g, '&')}`;
  }
  for (const depth of [0.1, 0.5, 0.9, 0.99999]) {
    const cursor = `${t0 + Math.floor(rows * (1 - depth)) * 1000}.0`;
    await measure(`page at ${(depth * 100).toFixed(3)}%`, () => get(`${base}/Listing.html?before=${cursor}`, ca, cookie));
  }
  const mon = `http://127.0.0.1:${(monitor.server.address() as { port: number }).port}`;
  for (const path of ['/all', '/done', '/error', '/active']) {
    await measure(`monitoring ${path} (NB=60)`, async () => {
      const t = performance.now();
      const r = await fetch(mon + path);
      await r.text();
      return { ms: performance.now() - t, server: Number(/dur=([\d.]+)/.exec(r.headers.get('server-timing') ?? '')?.[1] ?? NaN) };
    });
  }
  const judged = timings.length;
  // Filters on columns without an index scan until a page is full: shown, not judged.
  for (const [name, q] of [['filtered: rule=send (no index)', 'rule=send'], ['filtered: partner + error (no index)', 'req=partner7&error=on']] as const) {
    await measure(name, () => get(`${base}/Listing.html?${q}`, ca, cookie));
  }
  process.stdout.write(`web list paging on SQLite, ${rows} RUNNER rows, 48 rows per page (target: each page < ${TARGET_MS} ms)\n`);
  process.stdout.write(`  ${'page (median of 5)'.padEnd(40)} ${'round trip'.padStart(11)} ${'server'.padStart(9)}\n`);
  timings.forEach(([name, ms, server], i) => process.stdout.write(`  ${name.padEnd(40)} ${ms.toFixed(1).padStart(8)} ms ${server.toFixed(1).padStart(6)} ms ${i >= judged ? '(info)' : ms < TARGET_MS ? 'ok' : 'MISS'}\n`));
  const worst = Math.max(...timings.slice(0, judged).map(([, ms]) => ms));
  process.stdout.write(`worst page ${worst.toFixed(1)} ms: ${worst < TARGET_MS ? 'PASS' : 'MISS'} (load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs)\n`);
  live.close();
  agent.destroy();
  await admin.close();
  await monitor.close();
  await store.close();
  if (arg('--keep') === undefined) rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench web failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
