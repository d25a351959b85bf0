// The administration area (web-ui.md §2) in process, over HTTPS with a self-signed PEM key store and
// a real SQLite store: login (server admin, client-only partner, refusals, lockout), sessions and
// logout, CSRF, roles per page, and each page's actions changing the rows they should.
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { loadTlsMaterial } from '../../src/net/tls.js';
import { TransferOrders } from '../../src/operations/index.js';
import { createAdminApp } from '../../src/web/admin/app.js';
import { writeSelfSignedPem } from '../../src/web/admin/self-signed.js';
import { SessionStore } from '../../src/web/admin/sessions.js';
import { AuthGuard } from '../../src/http/auth-guard.js';
import { LiveBroadcaster } from '../../src/web/live.js';
import { testDialects } from '../helpers/databases.js';
import { rule } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { host, startHarness, type Harness } from '../http/harness.js';
import { AdminClient } from './admin-client.js';

let h: Harness;
let app: FastifyInstance;
let base: string;
let ca: string;
let dir: string;
let live: LiveBroadcaster;
const blocks: boolean[] = [];
/** The lockout's clock (the REST side's AuthGuard), moved on by the lockout test. */
let clock = Date.now();
const LOCKOUT_MS = 60_000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-web-admin-'));
  const pem = join(dir, 'admin.pem');
  await writeSelfSignedPem(pem);
  ca = readFileSync(pem, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0];
  const db = await testDialects()[0]!.create();
  h = await startHarness({ settings: db!.settings });
  const key = h.config.identity.cryptoKey;
  await h.store.hosts.upsert(host(key, 'viewer', 'viewpwd', { port: -1, isClient: true }));
  await h.store.hosts.upsert(host(key, 'operator', 'oppwd', { port: -1, isClient: true }));
  await h.store.hosts.upsert(host(key, 'lockme', 'lockpwd', { port: -1, isClient: true }));
  h.config.roles.push({ hostId: 'viewer', roles: 1 }, { hostId: 'operator', roles: 3 });
  await h.store.rules.insert(rule('send', TransferMode.SENDMODE));
  writeFileSync(join(h.config.directories.out, 'a.txt'), 'hello');
  h.services.blockRequests = (b) => { blocks.push(b); };
  live = new LiveBroadcaster();
  const orders = new TransferOrders({ store: h.store, hostId: 'hosta', sslHostId: 'hosta-ssl', directories: h.config.directories, blockSize: 65536 });
  const tls = (await loadTlsMaterial({ keyPath: pem })).server;
  app = await createAdminApp({ services: { rest: h.services, events: () => undefined, serverLang: { value: 'en' }, testConnection: async (id) => `TestPacket: MSG:${id}:101` }, orders, blocked: { value: false },
    sessions: new SessionStore('hosta'), guard: new AuthGuard({ restMaxAuthFailures: 3, restLockoutMs: LOCKOUT_MS, restClockSkewMs: 0, warnIntervalMs: 1000 }, h.services.log, () => clock, 'web administration'), live }, tls);
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `https://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});

afterAll(async () => {
  live?.close();
  await app?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const client = (): AdminClient => new AdminClient(base, ca);

async function admin(): Promise<AdminClient> {
  const c = client();
  expect((await c.login('admin', 'adminpwd')).status).toBe(303);
  return c;
}

describe('administration area: login and sessions', () => {
  it('without a session every page is the logon form; empty and bad logins say so; the server admin logs in', async () => {
    const c = client();
    const anon = await c.get('/Hosts.html');
    expect(anon.status).toBe(200);
    expect(anon.body).toContain('name="passwd"');
    expect(anon.headers['strict-transport-security']).toBeDefined();
    expect((await c.login('', '')).body).toContain('Empty login');
    const bad = await c.login('admin', 'wrong');
    expect(bad.status).toBe(401);
    expect(bad.body).toContain('Bad login');
    const ok = await c.login('admin', 'adminpwd');
    expect(ok.status).toBe(303);
    const [name, value] = [...c.cookies].find(([k]) => k.startsWith('R66SESSION'))!;
    expect(name).toBe('R66SESSIONhosta');
    expect(value).toMatch(/^hosta[0-9a-f]{32}$/);
    expect(String(ok.headers['set-cookie'])).toMatch(/HttpOnly; Secure; SameSite=Strict/);
    const start = await c.get('/index.html');
    expect(start.body).toContain('Logged in as <strong>admin</strong>');
    // Logout destroys the session: the old cookie no longer opens a page.
    const kept = new Map(c.cookies);
    await c.get('/Logout.html');
    c.cookies = kept;
    expect((await c.get('/Listing.html')).body).toContain('name="passwd"');
  });

  it('partners: only client-only entries (negative port) with their password; a host with a port is refused', async () => {
    expect((await client().login('viewer', 'viewpwd')).status).toBe(303);
    expect((await client().login('hostb', 'hostbpwd')).status).toBe(401);
  });

  it('locks a user and the address out after repeated failures (the REST lockout service and its settings), until restlockout has passed', async () => {
    // A successful login clears the address's count (as REST does): the earlier tests' failures are forgotten.
    expect((await client().login('viewer', 'viewpwd')).status).toBe(303);
    const c = client();
    for (let i = 0; i < 3; i++) expect((await c.login('lockme', 'nope')).status).toBe(401);
    const locked = await c.login('lockme', 'lockpwd');
    expect(locked.status).toBe(429);
    expect(locked.body).toContain('Too many failed logins');
    // The address is locked too (restmaxauthfailures failures from it): even the administrator waits.
    expect((await client().login('admin', 'adminpwd')).status).toBe(429);
    clock += LOCKOUT_MS + 1;
    expect((await client().login('lockme', 'lockpwd')).status).toBe(303);
    expect((await client().login('admin', 'adminpwd')).status).toBe(303);
  });

  it('a forged form (no or wrong CSRF token, or a foreign Origin) is refused and changes nothing', async () => {
    const c = await admin();
    const noToken = await c.send('POST', '/Hosts.html', { ACTION: 'Create', host: 'forged', address: '10.0.0.1', port: '6666', hostkey: 'x' });
    expect(noToken.status).toBe(403);
    expect(noToken.body).toContain('forged');
    const page = (await c.get('/Hosts.html')).body;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)![1]!;
    const foreign = await c.send('POST', '/Hosts.html', { csrf, ACTION: 'Create', host: 'forged', address: '10.0.0.1', port: '6666', hostkey: 'x' }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await h.store.hosts.get('forged')).toBeUndefined();
    // Another session's token does not fit this session.
    const other = await admin();
    const otherCsrf = /name="csrf" value="([0-9a-f]+)"/.exec((await other.get('/Hosts.html')).body)![1]!;
    expect((await c.send('POST', '/Hosts.html', { csrf: otherCsrf, ACTION: 'Delete', host: 'hostb' })).status).toBe(403);
    expect(await h.store.hosts.get('hostb')).toBeDefined();
  });

  it('login CSRF: a logon posted from another site (Origin, null Origin or Referer) is refused, no session; same-site and header-less logons work', async () => {
    const form = { name: 'admin', passwd: 'adminpwd', Logon: 'Logon' };
    for (const headers of <Record<string, string>[]>[{ origin: 'https://evil.example' }, { origin: 'null' }, { referer: 'https://evil.example/login.html' }, { origin: base.replace('127.0.0.1', 'localhost') }]) {
      const c = client();
      const r = await c.send('POST', '/Logon.html', form, headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect(r.headers['set-cookie'], JSON.stringify(headers)).toBeUndefined();
      expect(r.body).toContain('forged');
      expect((await c.get('/Hosts.html')).body).toContain('name="passwd"');
    }
    expect(h.logLines.some((l) => l.includes('logon from another site refused'))).toBe(true);
    const host = base.replace('https://', '');
    expect((await client().send('POST', '/Logon.html', form, { origin: base, host })).status).toBe(303);
    expect((await client().send('POST', '/Logon.html', form, { referer: `${base}/Logon.html` })).status).toBe(303);
    expect((await client().login('admin', 'adminpwd')).status).toBe(303);
  });

  it('roles: READONLY lists but may not cancel, create, edit hosts or rules; System is the limited page', async () => {
    const c = client();
    await c.login('viewer', 'viewpwd');
    expect((await c.get('/Listing.html')).status).toBe(200);
    for (const p of ['/CancelRestart.html', '/CreateTransfer.html', '/Hosts.html', '/Rules.html', '/Export.html']) {
      const r = await c.get(p);
      expect(r.status, p).toBe(403);
      expect(r.body).toContain('not allowed');
    }
    const sys = await c.get('/System.html');
    expect(sys.status).toBe(200);
    expect(sys.body).toContain('name="change"');
    expect(sys.body).not.toContain('name="loglevel"');
    // The menu shows only what the role opens.
    expect(sys.body).not.toContain('href="/Hosts.html"');
    // Archive downloads need SYSTEM.
    expect((await c.get('/arch/x.xml')).status).toBe(403);
  });
});

describe('administration area: pages and actions', () => {
  it('CreateTransfer submits a TOSUBMIT row through the order service; errors are shown, not thrown', async () => {
    const c = client();
    await c.login('operator', 'oppwd');
    const created = await c.post('/CreateTransfer.html', { ACTION: 'Create', host: 'hostb', rule: 'send', filename: 'a.txt', followid: '777' });
    expect(created.body).toContain('role="status"');
    const rows = await h.store.runner.list({ followId: 777n });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    const missing = await c.post('/CreateTransfer.html', { ACTION: 'Create', host: 'hostb', rule: 'send' });
    expect(missing.body).toContain('filename is required');
    const unknown = await c.post('/CreateTransfer.html', { ACTION: 'Create', host: 'nohost', rule: 'send', filename: 'a.txt' });
    expect(unknown.body).toMatch(/class="bad"/);
  });

  it('CreateTransfer Update: a stored transfer gets the new rule values through the order service, same id, back to TOSUBMIT; refusals change nothing', async () => {
    writeFileSync(join(h.config.directories.out, 'b.txt'), 'hello again');
    const c = client();
    await c.login('operator', 'oppwd');
    const created = await c.post('/CreateTransfer.html', { ACTION: 'Create', host: 'hostb', rule: 'send', filename: 'a.txt', startdate: '2099/01/01 10:00' });
    const id = BigInt(/Submit: (\d+)/.exec(created.body)![1]!);
    const key = { specialId: id, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' };
    await c.post('/CancelRestart.html', { ACTION: 'Stop', specid: String(id), reqd: 'hostb', reqr: 'hosta' });
    expect((await h.store.runner.get(key))!.updatedInfo).toBe(UpdatedInfo.INERROR);
    // The CancelRestart row links to the form, filled with the stored values.
    const keyQuery = `SPECIALID=${id}&REQUESTER=hosta&REQUESTED=hostb&OWNERREQ=hosta`;
    expect((await c.get(`/CancelRestart.html?startid=${id}&stopid=${id}`)).body).toContain(`CreateTransfer.html?${keyQuery.replace(/&/g, '&amp;')}`);
    const form = await c.get(`/CreateTransfer.html?${keyQuery}`);
    expect(form.body).toContain('value="Update"');
    expect(form.body).toContain('value="a.txt"');
    const keyFields = { SPECIALID: String(id), REQUESTER: 'hosta', REQUESTED: 'hostb', OWNERREQ: 'hosta' };
    const before = await h.store.runner.get(key);
    // The requested host cannot change; an unknown rule or a file outside the rule's directory is refused by the order service.
    expect((await c.post(`/CreateTransfer.html?${keyQuery}`, { ACTION: 'Update', ...keyFields, host: 'other', rule: 'send', filename: 'b.txt' })).body).toContain('the requested host cannot change');
    expect((await c.post(`/CreateTransfer.html?${keyQuery}`, { ACTION: 'Update', ...keyFields, host: 'hostb', rule: 'norule', filename: 'b.txt' })).body).toMatch(/class="bad"/);
    expect((await c.post(`/CreateTransfer.html?${keyQuery}`, { ACTION: 'Update', ...keyFields, host: 'hostb', rule: 'send', filename: '../../etc/passwd' })).body).toMatch(/class="bad"/);
    expect(await h.store.runner.get(key)).toEqual(before);
    // Without a start date the stored one stays.
    await c.post(`/CreateTransfer.html?${keyQuery}`, { ACTION: 'Update', ...keyFields, host: 'hostb', rule: 'send', filename: 'a.txt' });
    expect((await h.store.runner.get(key))!.start.getTime()).toBe(new Date(2099, 0, 1, 10, 0).getTime());
    const updated = await c.post(`/CreateTransfer.html?${keyQuery}`, { ACTION: 'Update', ...keyFields, host: 'hostb', rule: 'send', filename: 'b.txt', startdate: '2099/02/03 04:05', blocksize: '4096', transferinfo: 'edited', followid: '9090' });
    expect(updated.body).toContain(`Update ${id}: done`);
    const row = (await h.store.runner.get(key))!;
    expect(row).toMatchObject({ originalName: 'b.txt', updatedInfo: UpdatedInfo.TOSUBMIT, blockSize: 4096, rank: 0, idRule: 'send' });
    expect(row.fileInfo).toBe('edited {"follow":9090}');
    expect(row.start.getTime()).toBe(new Date(2099, 1, 3, 4, 5).getTime());
    expect(await h.store.runner.list({ ownerReq: 'hosta', specialIdFrom: id, specialIdTo: id })).toHaveLength(1);
    // A finished transfer, or one the partner requested, is not updated.
    await h.store.runner.insert(transferRecord(900n, { ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', idRule: 'send', updatedInfo: UpdatedInfo.DONE }));
    await h.store.runner.insert(transferRecord(901n, { ownerReq: 'hosta', requester: 'hostb', requested: 'hosta', idRule: 'send', updatedInfo: UpdatedInfo.INERROR }));
    const done = await c.post('/CreateTransfer.html', { ACTION: 'Update', SPECIALID: '900', REQUESTER: 'hosta', REQUESTED: 'hostb', OWNERREQ: 'hosta', rule: 'send', filename: 'b.txt' });
    expect(done.body).toContain('transfer 900 is finished: create a new one');
    const theirs = await c.post('/CreateTransfer.html', { ACTION: 'Update', SPECIALID: '901', REQUESTER: 'hostb', REQUESTED: 'hosta', OWNERREQ: 'hosta', rule: 'send', filename: 'b.txt' });
    expect(theirs.body).toContain('hostb requested transfer 901: only transfers this host requested can be replaced');
    expect((await h.store.runner.get({ specialId: 900n, requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' }))!.updatedInfo).toBe(UpdatedInfo.DONE);
  });

  it('Listing filters and pages; CancelRestart stops, restarts, cancels one row and stops all matching', async () => {
    const owned = { ownerReq: 'hosta', requester: 'hosta', requested: 'hostb' };
    for (let i = 0; i < 7; i++) {
      await h.store.runner.insert(transferRecord(BigInt(100 + i), { ...owned, idRule: 'send', updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(Date.now() + i * 1000), filename: `f${i}.txt`, transferInfo: '{"follow":42}' }));
    }
    const c = await admin();
    const page1 = await c.get('/Listing.html?startid=100&stopid=106&LIMITROW=5');
    expect(page1.body).toContain('f6.txt');
    expect(page1.body).not.toContain('f1.txt');
    const next = /href="([^"]+)" rel="next"/.exec(page1.body)![1]!.replace(/&amp;/g, '&');
    const page2 = await c.get(`/${next}`);
    expect(page2.body).toContain('f1.txt');
    expect(page2.body).toContain('f0.txt');
    expect(page2.body).not.toContain('f2.txt');
    expect(page2.body).toContain('rel="first"');
    expect(page2.body).not.toContain('rel="next"');
    const key = { ...owned, specialId: 100n };
    const stop = await c.post('/CancelRestart.html', { ACTION: 'Stop', specid: '100', reqd: 'hostb', reqr: 'hosta' });
    expect(stop.body).toContain('Stop 100');
    expect((await h.store.runner.get(key))!.infoStatus).toBe(ErrorCode.StoppedTransfer);
    await c.post('/CancelRestart.html', { ACTION: 'Restart', specid: '100', reqd: 'hostb', reqr: 'hosta' });
    expect((await h.store.runner.get(key))!.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    await c.post('/CancelRestart.html', { ACTION: 'Cancel', specid: '101', reqd: 'hostb', reqr: 'hosta' });
    expect((await h.store.runner.get({ ...owned, specialId: 101n }))!.infoStatus).toBe(ErrorCode.CanceledTransfer);
    const search = await c.get('/CancelRestart.html?ACTION=Search&followId=42');
    expect(search.body).toContain('f5.txt');
    const all = await c.post('/CancelRestart.html', { ACTION: 'StopAll', startid: '102', stopid: '106' });
    expect(all.body).toContain('StopAll: 5/5');
    for (let i = 102; i <= 106; i++) expect((await h.store.runner.get({ ...owned, specialId: BigInt(i) }))!.updatedInfo).toBe(UpdatedInfo.INERROR);
  });

  it('Export writes the history file with a download link that needs a session', async () => {
    const c = await admin();
    const r = await c.post('/Export.html', { ACTION: 'Export', startid: '100', stopid: '106' });
    const link = /href="(\/arch\/[^"]+)"/.exec(r.body)![1]!;
    const file = await c.get(link);
    expect(file.status).toBe(200);
    expect(file.body).toContain('<specialid>103</specialid>');
    expect((await client().get(link)).body).toContain('name="passwd"');
    expect((await c.get('/arch/..%2Fserver.xml')).status).toBe(404);
  });

  it('Hosts: create, test connection, update, delete; the key is never shown', async () => {
    const c = await admin();
    await c.post('/Hosts.html', { ACTION: 'Create', host: 'newhost', address: '10.1.2.3', port: '6666', hostkey: 'pw1', isactive: 'on' });
    const made = (await h.store.hosts.get('newhost'))!;
    expect(made.address).toBe('10.1.2.3');
    expect(made.isActive).toBe(true);
    const list = (await c.get('/Hosts.html')).body;
    expect(list).toContain('newhost');
    expect(list).not.toContain(made.hostKey!.toString('ascii'));
    expect((await c.post('/Hosts.html', { ACTION: 'TestConn', host: 'newhost' })).body).toContain('MSG:newhost:101');
    await c.post('/Hosts.html', { ACTION: 'Update', host: 'newhost', address: '10.1.2.4', port: '7777', hostkey: 'pw1' });
    expect((await h.store.hosts.get('newhost'))!.port).toBe(7777);
    // Without a port: a client-only entry.
    await c.post('/Hosts.html', { ACTION: 'Create', host: 'cli', address: '', hostkey: 'pw2' });
    expect((await h.store.hosts.get('cli'))!.port).toBe(-1);
    await c.post('/Hosts.html', { ACTION: 'Delete', host: 'newhost' });
    expect(await h.store.hosts.get('newhost')).toBeUndefined();
  });

  it('Rules: create with task lists, refuse an unknown task type, delete', async () => {
    const c = await admin();
    await c.post('/Rules.html', { ACTION: 'Create', rule: 'web1', mode: 'recvmd5', hostids: 'hostb hosta', recvp: 'in', rpost: '<tasks><task><type>LOG</type><path>done</path><delay>0</delay></task></tasks>' });
    const r = (await h.store.rules.get('web1'))!;
    expect(r.mode).toBe(TransferMode.RECVMD5MODE);
    expect(r.hostIds).toEqual(['hostb', 'hosta']);
    expect(r.rPostTasks.map((x) => x.type)).toEqual(['LOG']);
    const bad = await c.post('/Rules.html', { ACTION: 'Create', rule: 'web2', mode: 'send', spre: '<tasks><task><type>NOSUCHTASK</type><path>x</path></task></tasks>' });
    expect(bad.body).toMatch(/class="bad"/);
    expect(await h.store.rules.get('web2')).toBeUndefined();
    expect((await c.get('/Rules.html?rule=web1')).body).toContain('&lt;tasks&gt;');
    await c.post('/Rules.html', { ACTION: 'Delete', rule: 'web1' });
    expect(await h.store.rules.get('web1')).toBeUndefined();
  });

  it('task credentials: a SYSTEM user without RULE exports and downloads rules with -pwd masked; a RULE user\'s form sent back masked keeps the secret', async () => {
    const ftp = '-file #TRUEFULLPATH# -to ftp.example -port 21 -user bob -pwd WebHunter2 -command put';
    await h.store.rules.upsert({ ...rule('webftp', TransferMode.SENDMODE), sPostTasks: [{ type: 'FTP', path: ftp, delay: 0 }] });
    const a = await admin();
    // An export in clear by an administrator, then one by a SYSTEM-only user: both download masked for the latter.
    await a.post('/System.html', { ACTION: 'ExportConfig' });
    const rulesFile = join(h.config.directories.arch, 'hosta.rules.xml');
    expect(readFileSync(rulesFile, 'utf8')).toContain('WebHunter2');
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'sysonly', 'syspwd', { port: -1, isClient: true }));
    h.config.roles.push({ hostId: 'sysonly', roles: 32 });
    const s = client();
    expect((await s.login('sysonly', 'syspwd')).status).toBe(303);
    const fromAdmin = await s.get('/arch/hosta.rules.xml');
    expect(fromAdmin.status).toBe(200);
    expect(fromAdmin.body).toContain('-pwd ********');
    expect(fromAdmin.body).not.toContain('WebHunter2');
    await s.post('/System.html', { ACTION: 'ExportConfig' });
    expect(readFileSync(rulesFile, 'utf8')).not.toContain('WebHunter2');
    expect((await s.get('/arch/hosta.rules.xml')).body).toContain('-pwd ********');
    // The masked task list pasted back into the Rules form by a RULE user: the stored password stays.
    const masked = '<tasks><task><type>FTP</type><path>' + ftp.replace('WebHunter2', '********') + '</path><delay>0</delay></task></tasks>';
    const upd = await a.post('/Rules.html', { ACTION: 'Update', rule: 'webftp', mode: 'send', spost: masked });
    expect(upd.body).toMatch(/class="ok"/);
    expect((await h.store.rules.get('webftp'))!.sPostTasks[0]!.path).toBe(ftp);
    const created = await a.post('/Rules.html', { ACTION: 'Create', rule: 'webftp2', mode: 'send', spost: masked });
    expect(created.body).toContain('masked value');
    expect(await h.store.rules.get('webftp2')).toBeUndefined();
  });

  it('seeallid: a CONFIGADMIN user named in the host configuration sees every owner\'s transfers (orders only on this server\'s); others see this server\'s', async () => {
    await h.store.runner.insert(transferRecord(950n, { ownerReq: 'hostb', requester: 'hostb', requested: 'hosta', idRule: 'send', updatedInfo: UpdatedInfo.INERROR, filename: 'owned-by-b.txt' }));
    await h.store.runner.insert(transferRecord(951n, { ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', idRule: 'send', updatedInfo: UpdatedInfo.INERROR, filename: 'owned-by-a.txt' }));
    const c = await admin();
    const range = '?startid=950&stopid=951';
    expect((await c.get(`/Listing.html${range}`)).body).not.toContain('owned-by-b.txt');
    const hc = (await h.store.hostConfigs.get('hosta'))!;
    await h.store.hostConfigs.upsert({ ...hc, others: hc.others.replace('</root>', '<seeallid>someone, admin</seeallid></root>') });
    try {
      const all = (await c.get(`/Listing.html${range}`)).body;
      expect(all).toContain('owned-by-b.txt');
      expect(all).toContain('owned-by-a.txt');
      expect(all).toContain('<th scope="col">OWNERREQ</th>');
      const orders = (await c.get(`/CancelRestart.html${range}`)).body;
      expect(orders).toContain('owned-by-b.txt');
      expect(orders).toContain('aria-label="Stop 951"');
      expect(orders).not.toContain('aria-label="Stop 950"');
      // Not CONFIGADMIN (operator: READONLY TRANSFER), even if named: this server's only.
      await h.store.hostConfigs.upsert({ ...hc, others: hc.others.replace('</root>', '<seeallid>operator,admin</seeallid></root>') });
      const op = client();
      await op.login('operator', 'oppwd');
      expect((await op.get(`/Listing.html${range}`)).body).not.toContain('owned-by-b.txt');
    } finally {
      await h.store.hostConfigs.upsert(hc);
    }
  });

  it('System Language changesys: the server language becomes the pages\' language for viewers who chose none', async () => {
    const c = await admin();
    const page = await c.post('/System.html', { ACTION: 'Language', change: 'en', changesys: 'fr' });
    expect(page.body).toContain('name="changesys"');
    try {
      // A new viewer without a language cookie: French; the administrator's own choice (cookie en) stays.
      expect((await client().get('/index.html')).body).toContain('<html lang="fr">');
      expect((await c.get('/index.html')).body).toContain('<html lang="en">');
    } finally {
      await c.post('/System.html', { ACTION: 'Language', change: 'en', changesys: 'en' });
    }
    expect((await client().get('/index.html')).body).toContain('<html lang="en">');
  });

  it('System: bandwidth, host configuration, export configuration with links, block; French on request', async () => {
    const c = await admin();
    await c.post('/System.html', { ACTION: 'Validate', BSESSR: '1000', BSESSW: '2000', BGLOBR: '500', BGLOBW: '4000', DTRA: '2000', DCOM: '100', DRET: '1000' });
    expect(h.services.bandwidth.get()).toEqual({ readGlobal: 500, writeGlobal: 4000, readSession: 500, writeSession: 2000, delay: 2000 });
    await c.post('/System.html', { ACTION: 'HostConfig', BUSINESS: '<business><businessid>hostb</businessid></business>' });
    expect((await h.store.hostConfigs.get('hosta'))!.business).toContain('hostb');
    const exported = await c.post('/System.html', { ACTION: 'ExportConfig' });
    const links = [...exported.body.matchAll(/href="(\/arch\/[^"]+)"/g)].map((m) => m[1]!);
    expect(links.some((l) => l.includes('_Authentications.xml'))).toBe(true);
    expect((await c.get(links[0]!)).status).toBe(200);
    await c.post('/System.html', { ACTION: 'Block', blocking: 'on' });
    expect(blocks).toEqual([true]);
    const fr = await c.get('/System.html?setLng=fr');
    expect(fr.body).toContain('Niveau de journal');
  });
});
