// REST v1 data-model resources (/hosts, /rules, /transfers, /hostconfigs, /configurations) over
// real HTTP, signed and authenticated, on SQLite and (when reachable) PostgreSQL and MariaDB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptPasswordHex } from '../../src/config/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { host, startHarness, type Harness } from './harness.js';
import { v1, type V1CallOptions } from './v1-client.js';

const ADMIN = { user: 'v1admin', password: 'adminpw1' };

describe.each(testDialects())('REST v1 data models on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let h: Harness;
  const call = (method: string, path: string, o: V1CallOptions = {}) => v1(h, method, path, { ...ADMIN, ...o });
  beforeAll(async () => {
    db = await dbc.create();
    if (!db) return;
    h = await startHarness({ settings: db.settings, rest: { signature: true } });
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'v1admin', 'adminpw1', { port: -1, isClient: true, address: '0.0.0.0', adminRole: true }));
  });
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  it('creates, reads, updates, lists and deletes hosts; HOSTKEY in base64 both ways', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const body = JSON.stringify({ HOSTID: 'hostc', ADDRESS: '10.0.0.3', PORT: 6666, HOSTKEY: Buffer.from('clearpwd').toString('base64'), ISSSL: false, ADMINROLE: false, ISACTIVE: true });
    const created = await call('POST', '/hosts', { body });
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(created.headers.get('referer')).toBe('/hosts');
    const env = created.json();
    expect(env).toMatchObject({ 'X-Auth-User': 'v1admin', 'X-method': 'POST', path: '/hosts', base: 'hosts', uri: {}, command: 'CREATE', message: 'OK', code: 200 });
    expect(env.answer).toMatchObject({ '@model': 'DbHostAuth', HOSTID: 'hostc', ADDRESS: '10.0.0.3', PORT: 6666, ISSSL: false, ISCLIENT: false, ADMINROLE: false, ISACTIVE: true, UPDATEDINFO: 3 });
    expect(created.text).not.toContain('clearpwd');
    const stored = (await h.store.hosts.get('hostc'))!;
    expect((env.answer as { HOSTKEY: string }).HOSTKEY).toBe(stored.hostKey!.toString('base64'));
    expect(decryptPasswordHex(h.config.identity.cryptoKey, stored.hostKey!.toString('ascii'))).toBe('clearpwd');
    // PUT without HOSTKEY keeps the stored key (D9); names match in any case.
    const upd = await call('PUT', '/hosts/hostc', { body: '{"port":7000}' });
    expect(upd.json()).toMatchObject({ command: 'UPDATE', subpath: ['hostc'], uri: { _id: 'hostc' }, answer: { PORT: 7000 } });
    expect((await h.store.hosts.get('hostc'))!.hostKey!.equals(stored.hostKey!)).toBe(true);
    // A negative port makes a client-only partner.
    expect((await call('PUT', '/hosts/hostc', { body: '{"PORT":-1}' })).json().answer).toMatchObject({ ISCLIENT: true, ADDRESS: '0.0.0.0' });
    const one = await call('GET', '/hosts/hostc');
    expect(one.json()).toMatchObject({ command: 'GET', answer: { HOSTID: 'hostc' } });
    const list = await call('GET', '/hosts?ISACTIVE=true&limit=3');
    expect(list.json()).toMatchObject({ command: 'MULTIGET', answer: { filter: {}, count: 3, limit: 3 } });
    const filtered = await call('GET', '/hosts', { body: '{"HOSTID":"hostb"}' });
    expect(filtered.json().answer).toMatchObject({ filter: { HOSTID: 'hostb' }, count: 1, results: [{ HOSTID: 'hostb' }] });
    const del = await call('DELETE', '/hosts/hostc');
    expect(del.json()).toMatchObject({ command: 'DELETE', answer: { HOSTID: 'hostc' } });
    const gone = await call('GET', '/hosts/hostc');
    expect(gone.status).toBe(404);
    expect(gone.json()).toMatchObject({ code: 404, message: 'Not Found', command: 'GET' });
    const missing = await call('POST', '/hosts', { body: '{"HOSTID":"hostd"}' });
    expect(missing.status).toBe(400);
    expect(missing.json().detail).toContain('ADDRESS');
    expect(await h.store.hosts.get('hostd')).toBeUndefined();
  });

  it('manages rules with their XML columns; a rule in use is not deleted', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const body = JSON.stringify({
      IDRULE: 'rule-send', MODETRANS: 1, RECVPATH: 'in', SENDPATH: 'out', HOSTIDS: '<hostids><hostid>hostb</hostid></hostids>',
      SPOSTTASKS: '<tasks><task><type>LOG</type><path>sent #TRUEFULLPATH#</path><delay>0</delay></task></tasks>',
    });
    const created = await call('POST', '/rules', { body });
    expect(created.status).toBe(200);
    const item = created.json().answer as Record<string, unknown>;
    expect(Object.keys(item)).toEqual(['@model', 'IDRULE', 'MODETRANS', 'RECVPATH', 'SENDPATH', 'ARCHIVEPATH', 'WORKPATH', 'UPDATEDINFO', 'HOSTIDS',
      'SPRETASKS', 'SERRORTASKS', 'RPRETASKS', 'RPOSTTASKS', 'RERRORTASKS', 'SPOSTTASKS']);
    expect(item).toMatchObject({ HOSTIDS: '<hostids><hostid>hostb</hostid></hostids>', SPOSTTASKS: expect.stringContaining('<type>LOG</type>') as unknown });
    expect((await h.store.rules.get('rule-send'))!.sPostTasks).toEqual([{ type: 'LOG', path: 'sent #TRUEFULLPATH#', delay: 0 }]);
    await call('POST', '/rules', { body: '{"IDRULE":"rule-recv","MODETRANS":2}' });
    // Absent MODETRANS: every rule (D1); a mode filters; negative keeps IDRULE.
    expect((await call('GET', '/rules')).json().answer).toMatchObject({ count: 2 });
    expect((await call('GET', '/rules?MODETRANS=2')).json().answer).toMatchObject({ count: 1, results: [{ IDRULE: 'rule-recv' }] });
    expect((await call('GET', '/rules?MODETRANS=-1&IDRULE=rule-send')).json().answer).toMatchObject({ count: 1 });
    expect((await call('POST', '/rules', { body: '{"IDRULE":"bad","MODETRANS":12}' })).status).toBe(400);
    expect((await call('PUT', '/rules/rule-recv', { body: '{"workpath":"/work"}' })).json().answer).toMatchObject({ WORKPATH: '/work', MODETRANS: 2 });
    expect((await call('DELETE', '/rules/rule-recv')).status).toBe(200);
    expect((await call('DELETE', '/rules/rule-recv')).status).toBe(404);
  });

  it('creates, finds, lists, updates and deletes transfers with exact 64-bit ids', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const id = '-9223372036854775806';
    const body = `{"SPECIALID":${id},"IDRULE":"rule-send","FILENAME":"out/report.csv","REQUESTER":"hosta","REQUESTED":"hostb","STEPSTATUS":"CompleteOk","INFOSTATUS":"O","GLOBALSTEP":4,"TRANSFERINFO":"{\\"ORIGINALSIZE\\":2048}"}`;
    const created = await call('POST', '/transfers', { body });
    expect(created.status).toBe(200);
    expect(created.text).toContain(`"SPECIALID":${id}`);
    expect(created.json().answer).toMatchObject({
      '@model': 'DbTaskRunner', RETRIEVEMODE: true, MODETRANS: 1, OWNERREQ: 'hosta', STEPSTATUS: 'O  ', INFOSTATUS: 'O  ', GLOBALSTEP: 4, UPDATEDINFO: 3, ORIGINALSIZE: 2048, follow: '',
    });
    expect((await h.store.runner.get({ specialId: BigInt(id), requester: 'hosta', requested: 'hostb', ownerReq: 'hosta' }))?.idRule).toBe('rule-send');
    const q = `?REQUESTER=hosta&REQUESTED=hostb`;
    const one = await call('GET', `/transfers/${id}${q}`);
    expect(one.text).toContain(`"SPECIALID":${id}`);
    expect(one.json()).toMatchObject({ uri: { REQUESTER: 'hosta', REQUESTED: 'hostb', _id: id }, command: 'GET' });
    expect((await call('GET', `/transfers/${id}`)).status).toBe(404);
    expect((await call('GET', `/transfers/notanumber${q}`)).status).toBe(400);
    const second = await call('POST', '/transfers', { body: '{"IDRULE":"rule-send","FILENAME":"b.csv","REQUESTER":"hosta","REQUESTED":"hostb"}' });
    expect(second.json().answer).toMatchObject({ UPDATEDINFO: 3, FILENAME: 'b.csv' });
    expect((await call('GET', '/transfers')).json().answer).toMatchObject({ count: 2 });
    expect((await call('GET', '/transfers?PENDING=true&LIMIT=1')).json().answer).toMatchObject({ count: 1 });
    expect((await call('GET', '/transfers', { body: `{"STARTID":"${id}","STOPID":"${id}"}` })).json().answer).toMatchObject({ count: 1 });
    expect((await call('GET', '/transfers?PARTNER=nobody')).json().answer).toMatchObject({ count: 0 });
    // DONE = UPDATEDINFO 6 or GLOBALSTEP 4 (the first one).
    expect((await call('GET', '/transfers?OWNERREQ=*&DONE=true')).json().answer).toMatchObject({ count: 1, results: [{ GLOBALSTEP: 4 }] });
    const upd = await call('PUT', `/transfers/${id}${q}`, { body: '{"RANK":12,"SPECIALID":5,"FILEINFO":"a\\\\b"}' });
    expect(upd.json().answer).toMatchObject({ RANK: 12, FILEINFO: 'ab' });
    expect(upd.text).toContain(`"SPECIALID":${id}`);
    expect((await call('POST', '/transfers', { body: '{"IDRULE":"rule-send"}' })).json()).toMatchObject({ code: 400, detail: expect.stringContaining('FILENAME') as unknown });
    expect((await call('DELETE', `/transfers/${id}${q}`)).json()).toMatchObject({ command: 'DELETE', code: 200 });
    expect((await call('DELETE', `/transfers/${id}${q}`)).status).toBe(404);
  });

  it('manages host configurations and stored limits', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const put = await call('PUT', '/hostconfigs/hosta', { body: '{"ROLES":"<roles>\\n  <role><roleid>v1user</roleid><roleset>LOGCONTROL   HOST</roleset></role></roles>"}' });
    expect(put.json().answer).toMatchObject({ '@model': 'DbHostConfiguration', HOSTID: 'hosta', ROLES: '<roles> <role><roleid>v1user</roleid><roleset>LOGCONTROL HOST</roleset></role></roles>', UPDATEDINFO: 3 });
    expect((await call('GET', '/hostconfigs?ROLES=v1user')).json().answer).toMatchObject({ count: 1 });
    expect((await call('POST', '/hostconfigs', { body: '{"HOSTID":"hostz","BUSINESS":"<business></business>"}' })).json().answer).toMatchObject({ OTHERS: expect.stringContaining('<version>') as unknown });
    expect((await call('DELETE', '/hostconfigs/hostz')).status).toBe(200);
    // An unknown host's limits read as zeros (not 404).
    expect((await call('GET', '/configurations/hostq')).json().answer).toEqual({
      '@model': 'DbConfiguration', HOSTID: 'hostq', READGLOBALLIMIT: 0, WRITEGLOBALLIMIT: 0, READSESSIONLIMIT: 0, WRITESESSIONLIMIT: 0, DELAYLIMIT: 0, UPDATEDINFO: 0,
    });
    expect((await call('PUT', '/configurations/hostq', { body: '{"DELAYLIMIT":5}' })).status).toBe(404);
    await call('POST', '/configurations', { body: '{"HOSTID":"hosta","READGLOBALLIMIT":5000000,"WRITEGLOBALLIMIT":"10000000","DELAYLIMIT":1000}' });
    await call('POST', '/configurations', { body: '{"HOSTID":"hostb"}' });
    expect((await call('GET', '/configurations?BANDWIDTH=0')).json().answer).toMatchObject({ count: 1, results: [{ HOSTID: 'hostb' }] });
    expect((await call('GET', '/configurations?BANDWIDTH=6000000')).json().answer).toMatchObject({ count: 1, results: [{ HOSTID: 'hosta', WRITEGLOBALLIMIT: 10000000 }] });
    expect((await call('PUT', '/configurations/hosta', { body: '{"READGLOBALLIMIT":"lots"}' })).json()).toMatchObject({ code: 400, detail: expect.stringContaining('READGLOBALLIMIT') as unknown });
    expect((await h.store.limits.get('hosta'))?.readGlobalLimit).toBe(5000000);
  });
});
