// Issue 32 items 3 and 4 over real HTTP and a real store: task credentials masked for callers
// without RULE (REST v2, v1 updates), masks sent back keep the stored secret, and the configuration
// import with purge on a host whose history uses the rules (updated in place, kept, 4xx refusals).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK } from '../../src/model/rule-secrets.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { ADMIN, basic, host, startHarness, type Harness } from './harness.js';
import { cls, v1 } from './v1-client.js';

const dialects = testDialects();
const FTP = '-file #TRUEFULLPATH# -to ftp.example -port 21 -user bob -pwd Hunter2xyz -command put';
const S3 = '-URL http://s3.example -accessKey AKIDX -secretKey S3cr3tKeyValue -bucketName b -targetName #ORIGINALFILENAME#';
const MONITOR = basic('monitor', 'monpwd');

async function call(h: Harness, method: string, path: string, opts: { auth?: string; body?: string } = {}) {
  const headers: Record<string, string> = {};
  if (opts.auth !== undefined) headers.authorization = opts.auth;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(h.base + path, { method, headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe.each(dialects)('rule credentials and configuration import on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let h: Harness;
  beforeAll(async () => {
    db = await dbc.create();
    if (!db) return;
    h = await startHarness({ settings: db.settings });
    const body = JSON.stringify({ name: 'send', hostIds: [], mode: 'send', recvPath: 'in', sendPath: 'out',
      rPostTasks: [{ type: 'FTP', arguments: FTP }, { type: 'S3PUT', arguments: S3 }, { type: 'LOG', arguments: 'done' }] });
    const created = await call(h, 'POST', '/v2/rules', { auth: ADMIN, body });
    expect(created.status, created.text).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
    await db?.drop();
  });

  it('shows FTP -pwd and S3 -secretKey masked to READONLY and NOACCESS callers, in clear to RULE', async (ctx) => {
    if (dbc.skip(ctx)) return;
    for (const auth of [MONITOR, basic('nobody', 'nopwd')]) {
      const one = await call(h, 'GET', '/v2/rules/send', { auth });
      expect(one.status).toBe(200);
      expect(one.text).not.toMatch(/Hunter2xyz|S3cr3tKeyValue|AKIDX/);
      expect(one.json().rPostTasks).toEqual([
        { type: 'FTP', arguments: FTP.replace('Hunter2xyz', SECRET_MASK), delay: 0 },
        { type: 'S3PUT', arguments: S3.replace('AKIDX', SECRET_MASK).replace('S3cr3tKeyValue', SECRET_MASK), delay: 0 },
        { type: 'LOG', arguments: 'done', delay: 0 },
      ]);
    }
    const list = await call(h, 'GET', '/v2/rules', { auth: MONITOR });
    expect(list.status).toBe(200);
    expect(list.text).toContain(SECRET_MASK);
    expect(list.text).not.toMatch(/Hunter2xyz|S3cr3tKeyValue/);
    const admin = await call(h, 'GET', '/v2/rules/send', { auth: ADMIN });
    expect(admin.text).toContain('Hunter2xyz');
    expect(admin.text).toContain('S3cr3tKeyValue');
  });

  it('keeps the stored secret when a RULE caller sends a masked rule back, refuses a mask with nothing stored', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const masked = (await call(h, 'GET', '/v2/rules/send', { auth: MONITOR })).json();
    const put = await call(h, 'PUT', '/v2/rules/send', { auth: ADMIN, body: JSON.stringify({ rPostTasks: masked.rPostTasks, workPath: 'work' }) });
    expect(put.status, put.text).toBe(201);
    const stored = await h.store.rules.get('send');
    expect(stored!.rPostTasks.map((t) => t.path)).toEqual([FTP, S3, 'done']);
    expect(stored!.workPath).toBe('/work');
    const fresh = await call(h, 'POST', '/v2/rules', { auth: ADMIN, body: JSON.stringify({ name: 'copy', mode: 'send', rPostTasks: masked.rPostTasks }) });
    expect(fresh.status).toBe(400);
    expect(fresh.text).toContain('-pwd');
    expect(await h.store.rules.get('copy')).toBeUndefined();
  });

  it('imports its own export with purge on a host whose history uses the rules: updated in place, history rules kept', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const old = await call(h, 'POST', '/v2/rules', { auth: ADMIN, body: JSON.stringify({ name: 'old', mode: 'receive' }) });
    expect(old.status).toBe(201);
    await call(h, 'POST', '/v2/rules', { auth: ADMIN, body: JSON.stringify({ name: 'unused', mode: 'receive' }) });
    const exp = await call(h, 'GET', '/v2/server/config?exportRules=true&exportHosts=true', { auth: ADMIN });
    const files = exp.json() as Record<string, string>;
    expect(readFileSync(files.fileRule!, 'utf8')).toContain('Hunter2xyz');
    // The history names 'send' (running) and 'old'; the file then loses 'old' and 'unused'.
    await h.store.runner.insert(transferRecord(9001n, { idRule: 'send', requester: 'hosta', ownerReq: 'hosta', requested: 'hostb', updatedInfo: 5 }));
    await h.store.runner.insert(transferRecord(9002n, { idRule: 'old', requester: 'hosta', ownerReq: 'hosta', requested: 'hostb', updatedInfo: 6 }));
    const text = readFileSync(files.fileRule!, 'utf8');
    const trimmed = join(h.config.directories.conf, 'trimmed_rules.xml');
    writeFileSync(trimmed, text.replace(/<rule>\s*<idrule>(old|unused)<\/idrule>[\s\S]*?<\/rule>\s*/g, '').replace('-port 21', '-port 2121'));
    expect(readFileSync(trimmed, 'utf8')).not.toContain('<idrule>old</idrule>');
    const imp = await call(h, 'PUT', `/v2/server/config?purgeRules=true&rulesFile=${encodeURIComponent(trimmed)}&purgeHosts=true&hostsFile=${encodeURIComponent(files.fileHost!)}`, { auth: ADMIN });
    expect(imp.status, imp.text).toBe(200);
    expect(imp.json()).toEqual({ purgedHost: 'true', purgedRule: 'true', keptRules: ['old'] });
    expect((await h.store.rules.get('send'))!.rPostTasks[0]!.path).toBe(FTP.replace('-port 21', '-port 2121'));
    expect(await h.store.rules.get('old')).toBeDefined();
    expect(await h.store.rules.get('unused')).toBeUndefined();
    expect((await h.store.hosts.list()).length).toBeGreaterThan(3);
    // The same file once more (no purge, no history question): 200.
    expect((await call(h, 'PUT', `/v2/server/config?purgeRules=true&rulesFile=${encodeURIComponent(files.fileRule!)}`, { auth: ADMIN })).status).toBe(200);
  });

  it('REST v1 PUT /config with purgerule on the same host: 200, the history\'s rules kept and named in detail; a masked rule unknown here: 400 with the reason', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'v1admin', 'adminpw1', { port: -1, isClient: true, address: '0.0.0.0', adminRole: true }));
    const as = { user: 'v1admin', password: 'adminpw1' };
    await call(h, 'POST', '/v2/rules', { auth: ADMIN, body: JSON.stringify({ name: 'v1old', mode: 'receive' }) });
    await h.store.runner.insert(transferRecord(9101n, { idRule: 'v1old', requester: 'hosta', ownerReq: 'hosta', requested: 'hostb', updatedInfo: 5 }));
    const file = join(h.config.directories.conf, 'v1_rules.xml');
    writeFileSync(file, `<rules><rule><idrule>v1file</idrule><hostids/><mode>1</mode></rule></rules>`);
    const imp = await v1(h, 'PUT', '/config', { ...as, body: JSON.stringify({ '@class': cls('ConfigImportJsonPacket'), rule: file, purgerule: true }) });
    expect(imp.status, imp.text).toBe(200);
    expect(imp.json()).toMatchObject({ code: 200, answer: { results: [{ importedrule: true, purgedrule: true }] } });
    expect(String(imp.json().detail)).toMatch(/rules kept, still used by transfers: .*v1old/);
    expect(await h.store.rules.get('v1old')).toBeDefined();
    expect(await h.store.rules.get('v1file')).toBeDefined();
    expect((await h.store.rules.get('send'))!.rPostTasks.map((t) => t.path).join(' ')).toMatch(/Hunter2xyz/);
    writeFileSync(file, `<rules><rule><idrule>v1new</idrule><hostids/><mode>1</mode><rposttasks><tasks><task><type>FTP</type><path>-file a -to b -port 21 -user u -pwd ${SECRET_MASK} -command put</path><delay>0</delay></task></tasks></rposttasks></rule></rules>`);
    const refused = await v1(h, 'PUT', '/config', { ...as, body: JSON.stringify({ '@class': cls('ConfigImportJsonPacket'), rule: file, purgerule: true }) });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ code: 400 });
    expect(String(refused.json().detail)).toMatch(/v1new.*masked value.*-pwd/);
    expect(await h.store.rules.get('v1new')).toBeUndefined();
    expect(await h.store.rules.get('v1old')).toBeDefined();
  });

  it('imports a masked export back with the stored secrets, refuses a masked rule unknown here with the reason (400)', async (ctx) => {
    if (dbc.skip(ctx)) return;
    const exp = await call(h, 'GET', '/v2/server/config?exportRules=true', { auth: ADMIN });
    const file = (exp.json() as Record<string, string>).fileRule!;
    const masked = join(h.config.directories.conf, 'masked_rules.xml');
    writeFileSync(masked, readFileSync(file, 'utf8').replace('Hunter2xyz', SECRET_MASK).replace('S3cr3tKeyValue', SECRET_MASK));
    const ok = await call(h, 'PUT', `/v2/server/config?purgeRules=true&rulesFile=${encodeURIComponent(masked)}`, { auth: ADMIN });
    expect(ok.status, ok.text).toBe(200);
    expect((await h.store.rules.get('send'))!.rPostTasks.map((t) => t.path).join(' ')).toMatch(/Hunter2xyz.*S3cr3tKeyValue/);
    const renamed = join(h.config.directories.conf, 'renamed_rules.xml');
    writeFileSync(renamed, readFileSync(masked, 'utf8').replace('<idrule>send</idrule>', '<idrule>other</idrule>'));
    const refused = await call(h, 'PUT', `/v2/server/config?purgeRules=true&rulesFile=${encodeURIComponent(renamed)}`, { auth: ADMIN });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/rule other.*masked value.*-pwd/);
    expect(await h.store.rules.get('other')).toBeUndefined();
    expect(await h.store.rules.get('send')).toBeDefined();
  });

  it('REST v1: a caller without RULE is refused the rules, a RULE caller\'s masked update keeps the stored secrets', async (ctx) => {
    if (dbc.skip(ctx)) return;
    await h.store.hosts.upsert(host(h.config.identity.cryptoKey, 'v1admin', 'adminpw1', { port: -1, isClient: true, address: '0.0.0.0', adminRole: true }));
    const readonly = await v1(h, 'GET', '/rules/send', { user: 'monitor', password: 'monpwd' });
    expect([401, 403]).toContain(readonly.status);
    expect(readonly.text).not.toMatch(/Hunter2xyz|S3cr3tKeyValue/);
    const before = (await h.store.rules.get('send'))!.rPostTasks.map((t) => t.path);
    expect(before.join(' ')).toMatch(/Hunter2xyz.*S3cr3tKeyValue/);
    const masked = (await call(h, 'GET', '/v2/rules/send', { auth: MONITOR })).json().rPostTasks as Array<{ type: string; arguments: string }>;
    const xml = `<tasks>${masked.map((t) => `<task><type>${t.type}</type><path>${t.arguments}</path><delay>0</delay></task>`).join('')}</tasks>`;
    const upd = await v1(h, 'PUT', '/rules/send', { user: 'v1admin', password: 'adminpw1', body: JSON.stringify({ RPOSTTASKS: xml }) });
    expect(upd.status, upd.text).toBe(200);
    expect((await h.store.rules.get('send'))!.rPostTasks.map((t) => t.path)).toEqual(before);
    const fresh = await v1(h, 'POST', '/rules', { user: 'v1admin', password: 'adminpw1', body: JSON.stringify({ IDRULE: 'v1copy', RPOSTTASKS: xml }) });
    expect(fresh.status).toBe(400);
    expect(fresh.json().detail).toMatch(/masked value/);
    expect(await h.store.rules.get('v1copy')).toBeUndefined();
  });
});
