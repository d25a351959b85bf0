// REST v2 over real HTTP against a real store (SQLite always, PostgreSQL and MariaDB for the same suite when reachable).
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { ADMIN, basic, SIG_KEY, startHarness, type Harness } from './harness.js';
import { setStoredRow } from '../helpers/stored-row.js';

const dialects = testDialects();

async function call(h: Harness, method: string, path: string, opts: { auth?: string; body?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth !== undefined) headers.authorization = opts.auth;
  if (opts.body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const res = await fetch(h.base + path, { method, headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe.each(dialects)('REST v2 on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let h: Harness;
  beforeAll(async () => {
    db = await dbc.create();
    if (db) h = await startHarness({ settings: db.settings });
  });
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  it('refuses missing credentials, a wrong password and a missing role, with empty bodies', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const none = await call(h, 'GET', '/v2/hosts');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Basic, HMAC');
    expect(none.text).toBe('');
    expect((await call(h, 'GET', '/v2/hosts', { auth: basic('restadmin', 'wrong') })).status).toBe(401);
    expect((await call(h, 'GET', '/v2/hosts', { auth: basic('ghost', 'x') })).status).toBe(401);
    const forbidden = await call(h, 'POST', '/v2/hosts', { auth: basic('monitor', 'monpwd'), body: '{"name":"x","address":"a","port":1,"password":"p"}' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.text).toBe('');
    expect(await h.store.hosts.get('x')).toBeUndefined();
    expect((await call(h, 'GET', '/v2/hosts', { auth: basic('monitor', 'monpwd') })).status).toBe(200);
    expect((await call(h, 'GET', '/v2/hosts', { auth: basic('nobody', 'nopwd') })).status).toBe(403);
    expect(h.logLines.join('\n')).not.toMatch(/s3cret|monpwd|wrong/);
  });

  it('accepts HMAC credentials within resttimelimit both ways, refuses expired and far-future ones', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const sign = (stamp: string) => createHmac('sha256', SIG_KEY).update(`${stamp}restadmins3cret`).digest('hex');
    const go = (stamp: string, sig = sign(stamp)) => call(h, 'GET', '/v2/rules', { auth: `HMAC ${sig}`, headers: { 'x-auth-user': 'restadmin', 'x-auth-timestamp': stamp } });
    expect((await go(new Date().toISOString())).status).toBe(200);
    expect((await go(new Date(Date.now() - 60_000).toISOString())).status).toBe(401);
    expect((await go(new Date(Date.now() + 10_000).toISOString())).status).toBe(200);
    // The original never expired a future timestamp (issue 21): one past resttimelimit is refused.
    expect((await go(new Date(Date.now() + 3_600_000).toISOString())).status).toBe(401);
    expect((await go(new Date().toISOString(), '00'.repeat(32))).status).toBe(401);
    expect((await go('not-a-date')).status).toBe(401);
  });

  it('creates, reads, updates, lists and deletes hosts', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const created = await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":"hostc","address":"10.0.0.3","port":6666,"password":"clearpwd","isActive":true}' });
    expect(created.status).toBe(201);
    expect(created.headers.get('host-uri')).toBe('/v2/hosts/hostc');
    expect(created.json()).toMatchObject({ name: 'hostc', port: 6666, isSSL: false, isActive: true });
    expect(created.text).not.toContain('clearpwd');
    expect((await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":"hostc","address":"a","port":1,"password":"p"}' })).json()).toMatchObject({ errors: [{ errorCode: 8 }] });
    const upd = await call(h, 'PUT', '/v2/hosts/hostc', { auth: ADMIN, body: '{"PORT":7000}' });
    expect(upd.status).toBe(201);
    expect(upd.json().port).toBe(7000);
    expect((await call(h, 'PUT', '/v2/hosts/hostc', { auth: ADMIN, body: '{"name":"other"}' })).json()).toMatchObject({ errors: [{ errorCode: 13 }] });
    const list = await call(h, 'GET', '/v2/hosts?limit=2&order=descId', { auth: ADMIN });
    expect(list.json().totalResults).toBe(7);
    expect((list.json().results as unknown[]).length).toBe(2);
    expect((await call(h, 'DELETE', '/v2/hosts/hosta', { auth: ADMIN })).status).toBe(404);
    expect((await call(h, 'DELETE', '/v2/hosts/hostc', { auth: ADMIN })).status).toBe(204);
    expect((await call(h, 'GET', '/v2/hosts/hostc', { auth: ADMIN })).status).toBe(404);
  });

  it('reports every input problem of a body at once and changes nothing', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const bad = await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":5,"port":"x","color":"red"}' });
    expect(bad.status).toBe(400);
    const codes = (bad.json().errors as Array<{ errorCode: number }>).map((e) => e.errorCode).sort();
    expect(codes).toEqual([5, 6, 6, 7, 7]);
    expect((await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":' })).json()).toMatchObject({ errors: [{ errorCode: 2 }] });
    expect((await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '{"name":"a","name":"b"}' })).json()).toMatchObject({ errors: [{ errorCode: 3 }] });
    expect((await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '[1]' })).json()).toMatchObject({ errors: [{ errorCode: 2 }] });
    expect((await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: '' , headers: { 'content-type': 'application/json' } })).json()).toMatchObject({ errors: [{ errorCode: 1 }] });
    const huge = await call(h, 'POST', '/v2/hosts', { auth: ADMIN, body: `{"name":"${'x'.repeat(100_000)}"}` });
    expect(huge.status).toBe(413);
    expect(huge.text).toBe('');
    const fr = await call(h, 'GET', '/v2/hosts?limit=abc', { auth: ADMIN, headers: { 'accept-language': 'fr,en' } });
    expect(fr.status).toBe(400);
    expect(fr.json()).toMatchObject({ errors: [{ errorCode: 4 }] });
    expect(String((fr.json().errors as Array<{ message: string }>)[0]!.message)).toContain('invalide');
    expect((await call(h, 'GET', '/v2/hosts', { auth: ADMIN, headers: { 'content-type': 'application/json' } })).status).toBe(415);
    expect(await h.store.hosts.get('a')).toBeUndefined();
    for (const r of [bad, huge, fr]) expect(r.text).not.toMatch(/at .*\.ts|stack/i);
  });

  it('manages rules with the six task lists', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const body = JSON.stringify({ name: 'rule-send', hostIds: ['hostb', 'hosta'], mode: 'send', recvPath: 'in', sendPath: 'out',
      sErrorTasks: [{ type: 'RESCHEDULE', arguments: '-delay 3600000', delay: 0 }], rPostTasks: [{ type: 'LOG', arguments: 'x' }] });
    const created = await call(h, 'POST', '/v2/rules', { auth: ADMIN, body });
    expect(created.status).toBe(201);
    expect(created.headers.get('ruleuri')).toBe('/v2/rules/rule-send');
    expect(created.json()).toMatchObject({ mode: 'send', sErrorTasks: [{ type: 'RESCHEDULE' }], rPostTasks: [{ type: 'LOG', delay: 0 }], sPostTasks: [] });
    expect((await call(h, 'POST', '/v2/rules', { auth: ADMIN, body: '{"name":"r2","mode":"bogus","rPreTasks":[{"type":"NOPE"}]}' })).json().errors).toHaveLength(2);
    expect((await call(h, 'GET', '/v2/rules?modeTrans=send', { auth: ADMIN })).json().totalResults).toBe(1);
    expect((await call(h, 'GET', '/v2/rules?modeTrans=receive', { auth: ADMIN })).json().totalResults).toBe(0);
    expect((await call(h, 'GET', '/v2/rules/rule-send', { auth: basic('nobody', 'nopwd') })).status).toBe(200);
    expect((await call(h, 'PUT', '/v2/rules/rule-send', { auth: ADMIN, body: '{"workPath":"work"}' })).json().workPath).toBe('/work');
  });

  it('adds, reads, stops, restarts, cancels and deletes transfers with exact ids', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const add = await call(h, 'POST', '/v2/transfers', { auth: ADMIN, body: '{"ruleName":"rule-send","filename":"out/a.csv","requested":"hostb","fileInfo":"n"}' });
    expect(add.status).toBe(201);
    const idText = /"id":(-?\d+)/.exec(add.text)![1]!;
    expect(add.headers.get('transfer-uri')).toBe(`/v2/transfers/${idText}_hostb`);
    expect(add.json()).toMatchObject({ status: 'TOSUBMIT', retrieve: true, requester: 'hosta', errorCode: 45 });
    const stored = await h.store.runner.findBySpecialId('hosta', BigInt(idText));
    expect(stored[0]?.updatedInfo).toBe(3);
    expect((await call(h, 'POST', '/v2/transfers', { auth: ADMIN, body: '{"ruleName":"nope","filename":"f","requested":"hostb"}' })).json()).toMatchObject({ errors: [{ errorCode: 10 }] });
    expect((await call(h, 'POST', '/v2/transfers', { auth: ADMIN, body: '{"ruleName":"rule-send","filename":"f","requested":"ghost"}' })).json()).toMatchObject({ errors: [{ errorCode: 11 }] });
    expect((await call(h, 'POST', '/v2/transfers', { auth: ADMIN, body: '{"ruleName":"rule-send"}' })).json().errors).toHaveLength(2);
    const read = await call(h, 'GET', `/v2/transfers/${idText}_hostb`, { auth: ADMIN });
    expect(read.text).toContain(`"id":${idText}`);
    // Stop, restart and cancel change the status columns only: TRANSFERINFO keeps its map (the
    // scheduler's retry count, the follow id), where the original wrote "H" or "K" over it.
    const info = '{"SCHEDULERETRY":2,"follow":-922337203685477123}';
    await setStoredRow(h.store.runner, stored[0]!, { transferInfo: info });
    const stop = await call(h, 'PUT', `/v2/transfers/${idText}_hostb/stop`, { auth: ADMIN });
    expect(stop.json()).toMatchObject({ status: 'INERROR', errorCode: 'H'.charCodeAt(0), transferInfo: info });
    expect((await call(h, 'PUT', `/v2/transfers/${idText}_hostb/restart`, { auth: ADMIN })).json()).toMatchObject({ status: 'TOSUBMIT', transferInfo: info });
    expect((await call(h, 'PUT', `/v2/transfers/${idText}_hostb/cancel`, { auth: ADMIN })).json()).toMatchObject({ status: 'INERROR', errorCode: 'K'.charCodeAt(0), transferInfo: info });
    expect((await h.store.runner.get(stored[0]!))?.transferInfo).toBe(info);
    expect((await call(h, 'GET', '/v2/transfers?status=INERROR&limit=5', { auth: ADMIN })).json().totalResults).toBe(1);
    expect((await call(h, 'GET', '/v2/transfers?countOrder=true', { auth: ADMIN })).json()).toEqual({ totalResults: 1 });
    expect((await call(h, 'GET', '/v2/transfers?status=NOPE&limit=x', { auth: ADMIN })).json().errors).toHaveLength(2);
    expect((await call(h, 'GET', '/v2/transfers/12_nohost', { auth: ADMIN })).status).toBe(404);
    // Stop and cancel of a row not running move it like the engine does (GLOBALSTEP ERRORTASK, issue
    // 20): it is no longer in its initial state, so DELETE would remove it; an unknown id is 404.
    expect((await h.store.runner.get(stored[0]!))?.globalStep).toBe(5);
    expect((await call(h, 'DELETE', `/v2/transfers/12_hostb`, { auth: ADMIN })).status).toBe(404);
  });

  it('handles hostconfig and limits', async (ctx) => {
    if (dbc.skip(ctx)) return;
    expect((await call(h, 'POST', '/v2/hostconfig', { auth: ADMIN, body: '{}', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).json()).toMatchObject({ errors: [{ errorCode: 8 }] });
    const put = await call(h, 'PUT', '/v2/hostconfig', { auth: ADMIN, body: '{"business":["hostb"],"roles":[{"hostName":"monitor","roleList":["READONLY","LOGCONTROL","LIMIT"]}]}' });
    expect(put.status).toBe(201);
    expect(put.json()).toMatchObject({ business: ['hostb'], roles: [{ hostName: 'monitor', roleList: ['READONLY', 'LOGCONTROL', 'LIMIT'] }] });
    expect((await call(h, 'PUT', '/v2/hostconfig', { auth: ADMIN, body: '{"roles":[{"hostName":"x","roleList":["KING"]}]}' })).status).toBe(400);
    expect((await call(h, 'GET', '/v2/limits', { auth: ADMIN })).status).toBe(404);
    const created = await call(h, 'POST', '/v2/limits', { auth: ADMIN, body: '{"upGlobalLimit":10000000,"downGlobalLimit":5000000}' });
    expect(created.status).toBe(201);
    expect(h.services.bandwidth.get()).toMatchObject({ readGlobal: 5_000_000, writeGlobal: 10_000_000 });
    expect((await call(h, 'PUT', '/v2/limits', { auth: ADMIN, body: '{"delayLimit":-1}' })).json()).toMatchObject({ errors: [{ errorCode: 4 }] });
    expect((await call(h, 'GET', '/v2/limits', { auth: basic('monitor', 'monpwd') })).json()).toMatchObject({ downGlobalLimit: 5000000 });
    expect((await call(h, 'DELETE', '/v2/limits', { auth: ADMIN })).status).toBe(204);
    expect(h.services.bandwidth.get().readGlobal).toBe(0);
  });

  it('exports and purges history, exports and imports configuration, reports status', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const status = await call(h, 'GET', '/v2/server/status?period=PT1H', { auth: ADMIN });
    expect(status.json()).toMatchObject({ serverName: 'hosta', lastRun: null, overall: { allTransfers: 1 } });
    expect((await call(h, 'GET', '/v2/server/status?period=P1M', { auth: ADMIN })).status).toBe(400);
    const logs = await call(h, 'GET', '/v2/server/logs?purge=true', { auth: basic('monitor', 'monpwd') });
    expect(logs.json()).toMatchObject({ exported: 1, purged: 1 });
    expect(readFileSync(String(logs.json().filePath), 'utf8')).toContain('<globalstep>');
    expect(await h.store.runner.count()).toBe(0);
    const exp = await call(h, 'GET', '/v2/server/config?exportHosts=true&exportRules=true&exportRoles=true', { auth: ADMIN });
    const files = exp.json() as Record<string, string>;
    expect(Object.keys(files).sort()).toEqual(['fileHost', 'fileRoles', 'fileRule']);
    expect(existsSync(files.fileHost!)).toBe(true);
    await h.store.rules.delete('rule-send');
    const imp = await call(h, 'PUT', `/v2/server/config?rulesFile=${encodeURIComponent(files.fileRule!)}`, { auth: ADMIN });
    expect(imp.json()).toEqual({ purgedRule: 'true' });
    expect(await h.store.rules.get('rule-send')).toBeDefined();
    // Outside the host's directories: refused alike whether or not the file exists (issue 21); inside and missing: FileNotFound.
    expect((await call(h, 'PUT', '/v2/server/config?hostsFile=/nonexistent.xml', { auth: ADMIN })).json()).toMatchObject({ errors: [{ errorCode: 7 }] });
    expect((await call(h, 'PUT', '/v2/server/config?hostsFile=conf/nonexistent.xml', { auth: ADMIN })).json()).toMatchObject({ errors: [{ errorCode: 9 }] });
    expect((await call(h, 'GET', '/v2/server/config?exportHosts=maybe', { auth: ADMIN })).status).toBe(400);
    expect((await call(h, 'GET', '/v2/filemonitors', { auth: ADMIN })).json()).toEqual({ results: [], totalResults: 0, totalSubResults: 0 });
    expect((await call(h, 'PUT', '/v2/server/shutdown', { auth: basic('monitor', 'monpwd') })).status).toBe(403);
    expect((await call(h, 'PUT', '/v2/server/restart', { auth: ADMIN })).status).toBe(204);
    expect(h.shutdowns).toEqual([true]);
  });

  it('routes, gates and answers OPTIONS and CORS preflights; serves the OpenAPI document', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const unknown = await call(h, 'GET', '/v2/nothing?x=1', { auth: ADMIN });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('text/plain');
    expect(unknown.text).toBe('Problem accessing: /v2/nothing?x=1. Reason: Not Found');
    const patch = await call(h, 'PATCH', '/v2/hosts', { auth: ADMIN });
    expect(patch.status).toBe(405);
    expect(patch.text).toBe('Problem accessing: /v2/hosts. Reason: Method Not Allowed');
    // A record that does not exist stays status-only (§2.1).
    expect((await call(h, 'GET', '/v2/hosts/ghost', { auth: ADMIN })).text).toBe('');
    const opt = await call(h, 'OPTIONS', '/v2/hosts/x');
    expect(opt.status).toBe(200);
    expect(opt.headers.get('allow')).toContain('DELETE');
    const pre = await call(h, 'OPTIONS', '/v2/hosts', { headers: { origin: 'http://x', 'access-control-request-method': 'GET' } });
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    const doc = await call(h, 'GET', '/v2/openapi.json');
    expect(doc.json()).toMatchObject({ openapi: '3.0.3' });
    expect(Object.keys(doc.json().paths as object)).toContain('/v2/transfers/{id}/restart');
    expect((await call(h, 'GET', '/v2/hosts//', { auth: ADMIN })).status).toBe(200);
  });
});

describe('REST v2 gates and signatures', () => {
  const [sqlite] = testDialects();
  let db: TestDatabase | undefined;
  let h: Harness;
  beforeAll(async () => {
    db = await sqlite!.create();
    h = await startHarness({ settings: db!.settings, rest: { signature: true, methods: { ...Object.fromEntries(['DbHostAuth', 'DbRule', 'DbTaskRunner', 'DbHostConfiguration', 'DbConfiguration', 'Bandwidth', 'Business', 'Config', 'Information', 'Log', 'Server', 'Control'].map((f) => [f, 0])), DbHostAuth: 0x02 } as never } });
  });
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  it('applies the CRUD gate per restmethod and the body signature', async () => {
    expect((await call(h, 'GET', '/v2/hosts', { auth: ADMIN })).status).toBe(200);
    expect((await call(h, 'GET', '/v2/rules', { auth: ADMIN })).status).toBe(404);
    const body = '{"port":6667}';
    const refused = await call(h, 'PUT', '/v2/hosts/hostb', { auth: ADMIN, body, headers: { 'x-auth-signature': '00' } });
    expect(refused.status).toBe(405);
    expect((await h.store.hosts.get('hostb'))?.port).toBe(6666);
  });
});
