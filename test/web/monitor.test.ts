// The monitoring area (web-ui.md §1) over a real SQLite store: every path answers, lists show this
// server's transfers by category, /status is 500 with problems, and the status documents keep the
// original's element and key names in order (machine-read by existing tools).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { LiveBroadcaster } from '../../src/web/live.js';
import { createMonitorApp } from '../../src/web/monitor-app.js';
import { StatusDocuments } from '../../src/web/status-doc.js';
import { testDialects } from '../helpers/databases.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { startHarness, type Harness } from '../http/harness.js';
import { setStoredRow } from '../helpers/stored-row.js';

let h: Harness;
let app: FastifyInstance;
let base: string;
let live: LiveBroadcaster;

const XML_ORDER = ['HostID', 'Date', 'LastRun', 'FromDate', 'SecondsRunning', 'NetworkConnections', 'NbThreads', 'InBandwidth', 'OutBandwidth', 'OVERALL', 'STEPS', 'RUNNINGSTEPS'];
const OVERALL = ['AllTransfer', 'Unknown', 'NotUpdated', 'Interrupted', 'ToSubmit', 'Error', 'Running', 'Done', 'InRunning', 'OutRunning', 'LastInRunning', 'LastOutRunning', 'InAll', 'OutAll', 'InError', 'OutError'];
const STEPS = ['Notask', 'Pretask', 'Transfer', 'Posttask', 'AllDone', 'Error'];
const RUNNING_DETAIL = ['AllRunning', 'Running', 'InitOk', 'PreProcessingOk', 'TransferOk', 'PostProcessingOk', 'CompleteOk'];
const ERRORTYPES = ['ConnectionImpossible', 'ServerOverloaded', 'BadAuthent', 'ExternalOp', 'TransferError', 'MD5Error', 'Disconnection', 'FinalOp', 'Unimplemented',
  'Internal', 'Warning', 'QueryAlreadyFinished', 'QueryStillRunning', 'KnownHost', 'RemotelyUnknown', 'CommandNotFound', 'PassThroughMode', 'RemoteShutdown', 'Shutdown',
  'RemoteError', 'Stopped', 'Canceled', 'FileNotFound', 'Unknown'];

beforeAll(async () => {
  const db = await testDialects()[0]!.create();
  h = await startHarness({ settings: db!.settings });
  Object.assign(h.config.server, { pastLimit: 86_400_000, minimalDelay: 0, useHttpCompression: true });
  const now = Date.now();
  const owned = { ownerReq: 'hosta', requester: 'hosta', requested: 'hostb' };
  await h.store.runner.insert(transferRecord(1n, { ...owned, updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, stepStatus: ErrorCode.CompleteOk, start: new Date(now - 60_000), stop: new Date(now - 50_000), filename: 'done.txt' }));
  await h.store.runner.insert(transferRecord(2n, { ...owned, updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, stepStatus: ErrorCode.FileNotFound, infoStatus: ErrorCode.FileNotFound, start: new Date(now - 40_000), stop: new Date(now - 30_000), filename: 'missing.txt' }));
  await h.store.runner.insert(transferRecord(3n, { ...owned, updatedInfo: UpdatedInfo.RUNNING, globalStep: TaskStep.TRANSFERTASK, stepStatus: ErrorCode.Running, start: new Date(now - 20_000), stop: new Date(now - 1000), filename: 'running.txt', retrieveMode: false }));
  // Another owner's row (shared database): never shown.
  await h.store.runner.insert(transferRecord(4n, { ownerReq: 'other', requester: 'other', requested: 'hostb', updatedInfo: UpdatedInfo.INERROR, start: new Date(now - 10_000), filename: 'foreign.txt' }));
  live = new LiveBroadcaster({ intervalMs: 50 });
  app = await createMonitorApp({ services: { rest: h.services, events: () => undefined, serverLang: { value: 'en' } }, live, status: new StatusDocuments(h.services) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  live?.close();
  await app?.close();
  await h?.close();
});

const get = (path: string, init?: RequestInit) => fetch(base + path, init);

function elementOrder(xml: string, parent: string): string[] {
  const inner = new RegExp(`<${parent}>([\\s\\S]*?)</${parent}>`).exec(xml)![1]!;
  const names: string[] = [];
  let depth = 0;
  for (const m of inner.matchAll(/<(\/?)([A-Za-z0-9]+)>/g)) {
    if (m[1] === '/') depth--;
    else { if (depth === 0) names.push(m[2]!); depth++; }
  }
  return names;
}

describe('monitoring area', () => {
  it('home page: title with host id, links, specific form, language switch sets the i18next cookie', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    const body = await r.text();
    expect(body).toContain('Monitoring: hosta');
    for (const href of ['/active', '/error', '/done', '/all', '/statusxml?DETAIL=1', '/statusjson', '/spooled']) expect(body).toContain(`href="${href}"`);
    expect(body).toContain('name="INFO"');
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'");
    // usehttpcomp: gzip for a client that accepts it.
    expect(r.headers.get('content-encoding')).toBe('gzip');
    const fr = await get('/index.html?setLng=fr');
    expect(fr.headers.get('set-cookie')).toContain('i18next=fr');
    expect(await fr.text()).toContain('Supervision: hosta');
    expect(await (await get('/', { headers: { cookie: 'i18next=fr' } })).text()).toContain('lang="fr"');
  });

  it('lists: own transfers by category, newest first, NB rows; INFO selects the view on an unknown path', async () => {
    const all = await (await get('/ALL')).text();
    expect(all).toContain('done.txt');
    expect(all).toContain('running.txt');
    expect(all).not.toContain('foreign.txt');
    expect(all.indexOf('running.txt')).toBeLessThan(all.indexOf('done.txt'));
    const active = await (await get('/active')).text();
    expect(active).toContain('running.txt');
    expect(active).not.toContain('done.txt');
    const error = await (await get('/error')).text();
    expect(error).toContain('missing.txt');
    expect(error).not.toContain('running.txt');
    expect(await (await get('/done')).text()).toContain('done.txt');
    const one = await (await get('/all?NB=1')).text();
    expect(one).toContain('running.txt');
    expect(one).not.toContain('done.txt');
    const specific = await (await get('/specific?INFO=2&NB=0')).text();
    expect(specific).toContain('done.txt');
    expect(specific).not.toContain('missing.txt');
    // POST parameters in the body, as the home form may send them.
    const posted = await (await get('/specific', { method: 'POST', body: 'INFO=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).text();
    expect(posted).toContain('missing.txt');
  });

  it('a parameter with script markup voids every parameter (sanity check)', async () => {
    const r = await (await get('/specific?INFO=2&x=%3Cscript%3E')).text();
    expect(r).toContain('name="INFO"');
    expect(r).not.toContain('done.txt');
  });

  it('/status: 500 with one line per problem, 200 when none', async () => {
    const bad = await get('/status');
    expect(bad.status).toBe(500);
    const text = await bad.text();
    expect(text).toContain('Some Transfers are in ERROR');
    expect(text).toContain('Some Transfers are in ERRORTASK');
    expect(text).not.toContain('INTERRUPTED');
    await setStoredRow(h.store.runner, { specialId: 2n, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' }, { updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK });
    const good = await get('/status');
    expect(good.status).toBe(200);
    expect(await good.text()).toContain('No problem is found in Transfers');
    await setStoredRow(h.store.runner, { specialId: 2n, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' }, { updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK });
  });

  it('/statusxml: the element names and order of web-ui.md §1.5; DETAIL adds the detailed parts', async () => {
    const r = await get('/statusxml');
    expect(r.headers.get('content-type')).toContain('text/xml');
    const xml = await r.text();
    expect(elementOrder(xml, 'STATUS')).toEqual(XML_ORDER);
    expect(elementOrder(xml, 'OVERALL')).toEqual(OVERALL);
    expect(elementOrder(xml, 'STEPS')).toEqual(STEPS);
    expect(elementOrder(xml, 'RUNNINGSTEPS')).toEqual(['AllRunning']);
    expect(xml).toContain('<HostID>hosta</HostID>');
    expect(xml).toMatch(/<Date>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d)<\/Date>/);
    const detailed = await (await get('/statusxml?DETAIL=1')).text();
    expect(elementOrder(detailed, 'STATUS')).toEqual([...XML_ORDER, 'ERRORTYPES']);
    expect(elementOrder(detailed, 'RUNNINGSTEPS')).toEqual(RUNNING_DETAIL);
    expect(elementOrder(detailed, 'ERRORTYPES')).toEqual(ERRORTYPES);
    expect(detailed).toContain('<FileNotFound>1</FileNotFound>');
  });

  it('/statusjson: the same keys, numbers as numbers, pretty-printed; NB is a look-back in seconds', async () => {
    const r = await get('/statusjson?DETAIL=1');
    expect(r.headers.get('content-type')).toContain('application/json');
    const text = await r.text();
    expect(text).toContain('\n  "STATUS": {');
    const doc = JSON.parse(text) as { STATUS: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc)).toEqual(['STATUS']);
    expect(Object.keys(doc.STATUS)).toEqual([...XML_ORDER, 'ERRORTYPES']);
    expect(Object.keys(doc.STATUS.OVERALL!)).toEqual(OVERALL);
    expect(Object.keys(doc.STATUS.RUNNINGSTEPS!)).toEqual(RUNNING_DETAIL);
    expect(Object.keys(doc.STATUS.ERRORTYPES!)).toEqual(ERRORTYPES);
    expect(doc.STATUS.OVERALL!.Running).toBe(1);
    expect(doc.STATUS.OVERALL!.InRunning).toBe(1);
    const plain = JSON.parse(await (await get('/statusjson')).text()) as { STATUS: Record<string, unknown> };
    expect(Object.keys(plain.STATUS)).toEqual(XML_ORDER);
    const recent = JSON.parse(await (await get('/statusjson?NB=1')).text()) as { STATUS: { OVERALL: { AllTransfer: number } } };
    expect(recent.STATUS.OVERALL.AllTransfer).toBeLessThanOrEqual(1);
  });

  it('spooled pages answer without watchers; other methods are refused', async () => {
    expect(await (await get('/spooled')).text()).toContain('No file watcher');
    expect((await get('/SpooledDetail?DETAIL=1')).status).toBe(200);
    expect((await get('/', { method: 'DELETE' })).status).toBe(405);
  });
});
