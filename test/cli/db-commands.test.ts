import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasNoStack, runCli, sandbox, sqliteRows, writeInstance, type Instance, type Sandbox } from './cli-helpers.js';

let box: Sandbox;
let inst: Instance;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  env = { ...box.env, INSTANCES_CONF: join(box.dir, 'conf') };
});
afterEach(() => box.cleanup());

describe('svc-r66server initdb (cli.md §2.5, §4)', () => {
  it('creates the schema and the own rows, then says done', async () => {
    const r = await runCli('server', ['initdb'], env);
    expect(r).toMatchObject({ code: 0, stdout: 'Initializing database... done\n' });
    const others = await sqliteRows<{ hostid: string; others: string }>(inst.sqliteFile, 'select hostid, others from hostconfig');
    expect(others).toEqual([{ hostid: 'hosta', others: '<root><version>3.1.0</version></root>' }]);
    expect(await sqliteRows(inst.sqliteFile, 'select hostid from multiplemonitor')).toEqual([{ hostid: 'hosta' }]);
    // Running it again is harmless.
    expect((await runCli('server', ['hosta', 'initdb', '-upgradeDb'], env)).code).toBe(0);
  });

  it('loads partners, rules and limits given as options (names case-insensitive)', async () => {
    writeFileSync(join(box.dir, 'limit.xml'), '<config><identity><hostid>hosta</hostid></identity><limit><sessionlimit>1000</sessionlimit><globallimit>5000</globallimit><delaylimit>100</delaylimit></limit></config>');
    const r = await runCli('server', ['initdb', '-AUTH', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir, '-limit', join(box.dir, 'limit.xml')], env);
    expect(r.code).toBe(0);
    const hosts = await sqliteRows<{ hostid: string; hostkey: Buffer; adminrole: number }>(inst.sqliteFile, 'select hostid, hostkey, adminrole from hosts order by hostid');
    expect(hosts.map((h) => [h.hostid, h.hostkey.toString('ascii'), h.adminrole])).toEqual([
      ['hosta', '5a4b7c6a66065cbb622acefec8c3a302', 1],
      ['partnera', '5a4b7c6a66065cbb622acefec8c3a302', 0],
    ]);
    const rules = await sqliteRows<{ idrule: string; modetrans: number; hostids: string }>(inst.sqliteFile, 'select idrule, modetrans, hostids from rules order by idrule');
    expect(rules.map((x) => [x.idrule, x.modetrans])).toEqual([['pull', 2], ['send', 1]]);
    expect(rules[0]?.hostids).toContain('partnera');
    const limits = await sqliteRows(inst.sqliteFile, 'select hostid, readgloballimit, writesessionlimit, delaylimit from configuration');
    expect(limits).toEqual([{ hostid: 'hosta', readgloballimit: 5000, writesessionlimit: 1000, delaylimit: 100 }]);
  });

  it('stores -loadBusiness/-loadRoles/-loadAlias files in the own hostconfig row', async () => {
    writeFileSync(join(box.dir, 'business.xml'), '<business>\n  <businessid>partnera</businessid>\n</business>\n');
    const r = await runCli('server', ['initdb', '-loadBusiness', join(box.dir, 'business.xml')], env);
    expect(r.code).toBe(0);
    const rows = await sqliteRows<{ business: string }>(inst.sqliteFile, "select business from hostconfig where hostid = 'hosta'");
    expect(rows[0]?.business).toBe('<business> <businessid>partnera</businessid> </business>');
  });

  it('refuses an unknown option naming it (exit 1) without touching the database', async () => {
    const r = await runCli('server', ['initdb', '-bogus'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("unknown option '-bogus' for initdb");
    expect(existsSync(inst.sqliteFile)).toBe(false);
  });

  it('an invalid rule file fails with exit 1, names the file, and leaves no database behind', async () => {
    const rules = join(box.dir, 'rules');
    mkdirSync(rules);
    writeFileSync(join(rules, 'good.rule.xml'), '<rule><idrule>good</idrule><mode>1</mode></rule>');
    writeFileSync(join(rules, 'bad.rule.xml'), '<rule><idrule>bad</idrule>');
    const r = await runCli('server', ['initdb', '-dir', rules], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('Initializing database... *** ERROR ***\n');
    expect(r.stderr).toContain('bad.rule.xml');
    expect(hasNoStack(r.stderr)).toBe(true);
    expect(existsSync(inst.sqliteFile)).toBe(false);
  });

  it('a malformed server.xml gives exit 2 and names the file and element', async () => {
    writeFileSync(join(inst.confDir, 'server.xml'), '<config><identity><hostid>hosta</hostid></identity></config>');
    const r = await runCli('server', ['initdb'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/server\.xml.*cryptokey/);
    expect(hasNoStack(r.stderr)).toBe(true);
  });

  it('an unreachable database is an SQL error: exit 2, message names the database', async () => {
    const pg = writeInstance(join(box.dir, 'conf2', 'hostpg'), { db: { driver: 'postgresql', url: 'jdbc:postgresql://127.0.0.1:1/nowhere', password: 'secretpw' } });
    const r = await runCli('server', ['initdb'], { ...env, CONFDIR: pg.confDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('127.0.0.1:1');
    expect(r.stderr).not.toContain('secretpw');
    expect(hasNoStack(r.stderr)).toBe(true);
  });
});

describe('svc-r66server loadauth / loadrule / loadconf (cli.md §2.6-2.8)', () => {
  beforeEach(async () => {
    expect((await runCli('server', ['initdb'], env)).code).toBe(0);
  });

  it('loadauth FILE loads the partners', async () => {
    const r = await runCli('server', ['loadauth', join(inst.confDir, 'authent.xml')], env);
    expect(r).toMatchObject({ code: 0, stdout: 'Loading authentication information... done\n' });
    expect(await sqliteRows(inst.sqliteFile, 'select hostid from hosts order by hostid')).toEqual([{ hostid: 'hosta' }, { hostid: 'partnera' }]);
  });

  it('loadauth with a missing file or no argument fails with exit 1', async () => {
    const missing = await runCli('server', ['loadauth', join(box.dir, 'nope.xml')], env);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('Loading authentication information... *** ERROR ***\n');
    expect(missing.stderr).toMatch(/nope\.xml.*not found/);
    const none = await runCli('server', ['loadauth'], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('loadauth expects one argument');
  });

  it('loadrule DIR loads the rule files; a missing directory fails with exit 1', async () => {
    const r = await runCli('server', ['loadrule', inst.confDir], env);
    expect(r).toMatchObject({ code: 0, stdout: 'Loading rule information... done\n' });
    expect(await sqliteRows(inst.sqliteFile, 'select idrule from rules order by idrule')).toEqual([{ idrule: 'pull' }, { idrule: 'send' }]);
    const bad = await runCli('server', ['loadrule', join(box.dir, 'nodir')], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('nodir');
  });

  it('loadrule of a masked export keeps the stored secret; a mask with no stored value is refused (exit 1), nothing written', async () => {
    const ruleDir = join(box.dir, 'rules');
    mkdirSync(ruleDir);
    const ruleFile = (id: string, pwd: string): string =>
      `<rule><idrule>${id}</idrule><hostids/><mode>1</mode><rposttasks><tasks><task><type>LOG</type><path>copy -user u -pwd ${pwd}</path><delay>0</delay></task></tasks></rposttasks></rule>\n`;
    writeFileSync(join(ruleDir, 'ftp.rule.xml'), ruleFile('ftp', 'realsecret'));
    expect((await runCli('server', ['loadrule', ruleDir], env)).code).toBe(0);
    // The same rule as a caller without the RULE role exports it: the secret is masked.
    writeFileSync(join(ruleDir, 'ftp.rule.xml'), ruleFile('ftp', '********'));
    expect((await runCli('server', ['loadrule', ruleDir], env)).code).toBe(0);
    const kept = await sqliteRows(inst.sqliteFile, "select rposttasks from rules where idrule = 'ftp'");
    expect(String(kept[0]!['rposttasks'])).toContain('-pwd realsecret');
    writeFileSync(join(ruleDir, 'other.rule.xml'), ruleFile('other', '********'));
    const refused = await runCli('server', ['loadrule', ruleDir], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('rule other');
    expect(refused.stderr).toContain('masked');
    expect(hasNoStack(refused.stderr)).toBe(true);
    expect(await sqliteRows(inst.sqliteFile, "select idrule from rules where idrule = 'other'")).toEqual([]);
  });

  it('loadconf loads authent.xml (no authent-server.xml here) and the rules of CONFDIR', async () => {
    const r = await runCli('server', ['loadconf'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Loading configuration in database... \nLoading authentication information... done\nLoading rule information... done\n');
    expect((await sqliteRows(inst.sqliteFile, 'select count(*) as n from hosts'))[0]).toEqual({ n: 2 });
    expect((await sqliteRows(inst.sqliteFile, 'select count(*) as n from rules'))[0]).toEqual({ n: 2 });
  });

  it('loadconf prefers authent-server.xml and stops at its first failure (exit 1)', async () => {
    writeFileSync(join(inst.confDir, 'authent-server.xml'), '<authent><entry>');
    const r = await runCli('server', ['loadconf'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('authent-server.xml');
    expect(r.stdout).not.toContain('Loading rule information');
  });

  it('loading into a database without tables says to run initdb (exit 1)', async () => {
    rmSync(inst.sqliteFile);
    const r = await runCli('server', ['loadauth', join(inst.confDir, 'authent.xml')], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('run initdb');
  });
});

describe('svc-r66client admin commands (cli.md §3.9)', () => {
  it('initdb prints no leading message; loadconf loads authent.xml and rules', async () => {
    const init = await runCli('client', ['initdb'], env);
    expect(init).toMatchObject({ code: 0, stdout: 'done\n' });
    const conf = await runCli('client', ['hosta', 'loadconf'], env);
    expect(conf.code).toBe(0);
    expect((await sqliteRows(inst.sqliteFile, 'select count(*) as n from hosts'))[0]).toEqual({ n: 2 });
  });

  it('lists only its working commands in the usage', async () => {
    const r = await runCli('client', ['help'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: svc-r66client');
    expect(r.stdout).toContain('loadconf');
    expect(r.stdout).not.toMatch(/^\s+start/m);
  });
});
