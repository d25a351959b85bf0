// `svc-r66server migrate` from an H2 database of the original's schema, built with Debian's
// libh2-java (H2 2.1.x) and with an H2 1.4.x jar (Debian bullseye's 1.4.197, the file format of
// Waarp 3.6.2's 1.4.200, given with -h2jar): every table copied, the <db> sections repointed with *.bak kept,
// the H2 file untouched, the next id above this host's own ids only, dry run and second run.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCsvRecords } from '../../src/admin/migration/csv.js';
import { withDbSection } from '../../src/admin/migration/db-section.js';
import { chooseH2Jar, findH2Jars, locateH2 } from '../../src/admin/migration/h2-reader.js';
import { defaultSqliteFile, formatMigrationReport, migrateHost, MigrationError } from '../../src/admin/migration/index.js';
import { PASSWORD_HEX, runCli, sandbox, sqliteRows, writeInstance, type Sandbox } from '../cli/cli-helpers.js';
import { buildJavaH2, DEBIAN_H2_JAR, H2_14_JAR, h2Available, h2DbSection, hostInsert, ruleInsert, runnerInsert } from './migration-h2.js';

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('H2 CSV reading', () => {
  it('keeps NULL (unquoted empty) apart from the empty string, quotes and line breaks', () => {
    const recs = parseCsvRecords('"A","B","C"\n,"","x""y,\nz"\n"1",,"2"\n');
    expect(recs).toEqual([{ A: null, B: '', C: 'x"y,\nz' }, { A: '1', B: null, C: '2' }]);
  });
});

describe('the <db> section rewrite', () => {
  it('changes dbdriver and dbserver only, comments and layout kept', () => {
    const text = '<config>\n  <!-- mine -->\n  <db>\n    <dbdriver>h2</dbdriver>\n    <dbserver>jdbc:h2:/x/waarp</dbserver>\n    <dbuser>u</dbuser>\n  </db>\n</config>\n';
    const out = withDbSection(text, 'server.xml', 'sqlite', 'jdbc:sqlite:/a&b/db.sqlite', 'was h2');
    expect(out).toContain('<dbdriver>sqlite</dbdriver>');
    expect(out).toContain('<dbserver>jdbc:sqlite:/a&amp;b/db.sqlite</dbserver>');
    expect(out).toContain('<dbuser>u</dbuser>');
    expect(out.startsWith('<config>\n  <!-- mine -->\n  <db><!-- was h2 -->')).toBe(true);
    expect(() => withDbSection('<config/>', 'client.xml', 'sqlite', 'x', 'n')).toThrow(/no <db> section/);
  });
});

describe('H2 file of the URL', () => {
  it('a relative path: the working directory first (where Java took it), then server.xml\'s; else both named', async () => {
    const box = sandbox();
    try {
      const [cwd, conf] = [join(box.dir, 'var-lib-waarp-hosta'), join(box.dir, 'etc-hosta')];
      for (const d of [cwd, conf]) mkdirSync(join(d, 'db'), { recursive: true });
      writeFileSync(join(conf, 'db', 'waarp.mv.db'), 'H:2,block:0,blockSize:1000,chunk:0,created:1,format:1,version:1,fletcher:0\n');
      const url = 'jdbc:h2:db/waarp;IFEXISTS=TRUE;AUTO_SERVER=TRUE';
      expect(await locateH2(url, [cwd, conf], box.dir)).toEqual({ base: join(conf, 'db', 'waarp'), file: join(conf, 'db', 'waarp.mv.db'), format: 1 });
      writeFileSync(join(cwd, 'db', 'waarp.mv.db'), 'H:2,block:0,blockSize:1000,chunk:0,created:1,format:2,version:1,fletcher:0\n');
      expect((await locateH2(url, [cwd, conf], box.dir)).file).toBe(join(cwd, 'db', 'waarp.mv.db'));
      const missing = await locateH2('jdbc:h2:./nodb/w', [cwd, conf], box.dir).catch((e: unknown) => e as Error);
      expect((missing as Error).message).toContain(join(cwd, 'nodb', 'w.mv.db'));
      expect((missing as Error).message).toContain(join(conf, 'nodb', 'w.mv.db'));
      expect((missing as Error).message).toMatch(/working directory/);
    } finally {
      box.cleanup();
    }
  });
});

describe('H2 jar selection', () => {
  it('picks the jar whose major version reads the file format, else asks for -h2jar', async () => {
    const jars = [{ path: '/j/h2-2.1.214.jar', version: '2.1.214' }, { path: '/j/h2-1.4.200.jar', version: '1.4.200' }];
    expect((await chooseH2Jar(undefined, jars, { base: '/d/w', file: '/d/w.mv.db', format: 1 })).path).toBe('/j/h2-1.4.200.jar');
    expect((await chooseH2Jar(undefined, jars, { base: '/d/w', file: '/d/w.mv.db', format: 2 })).path).toBe('/j/h2-2.1.214.jar');
    await expect(chooseH2Jar(undefined, [jars[0]!], { base: '/d/w', file: '/d/w.mv.db', format: 1 })).rejects.toThrow(/H2 1\.4\.x .*-h2jar/);
  });

  it('finds H2 inside a Waarp jar with dependencies beside etc/ (portable archive), after the named jars', async () => {
    const box = sandbox();
    try {
      const etc = join(box.dir, 'waarp', 'etc', 'conf.d', 'hosta');
      const lib = join(box.dir, 'waarp', 'lib');
      mkdirSync(etc, { recursive: true });
      mkdirSync(lib);
      writeFileSync(join(etc, 'server.xml'), '<config/>');
      // Zip entry names are stored as they are: these stand for a bundle with H2 and one without.
      writeFileSync(join(lib, 'WaarpR66-3.6.2-jar-with-dependencies.jar'), 'PK\u0003\u0004...org/h2/tools/Shell.class...PK\u0001\u0002');
      writeFileSync(join(lib, 'WaarpCommon-3.6.2.jar'), 'PK\u0003\u0004...org/waarp/common/Thing.class...');
      const found = await findH2Jars(join(etc, 'server.xml'), {});
      const bundle = { path: join(lib, 'WaarpR66-3.6.2-jar-with-dependencies.jar'), version: undefined };
      expect(found).toContainEqual(bundle);
      expect(found.map((j) => j.path)).not.toContain(join(lib, 'WaarpCommon-3.6.2.jar'));
      // A 1.4 file: no named jar of this machine fits (Debian's is 2.x), the bundle is taken.
      const named = found.filter((j) => j.version !== undefined);
      expect((await chooseH2Jar(undefined, [...named, bundle], { base: '/d/w', file: '/d/w.mv.db', format: 1 })).path).toBe(bundle.path);
    } finally {
      box.cleanup();
    }
  });
});

const PARTNER_ID = 8800000000000000001n; // a partner's random (GUID-mode) id: not ours

// In CI (SVC_TEST_REQUIRE_DBS=1) both jars must be there: .ci/run installs them.
const H2_JARS = [
  { label: 'Debian libh2-java 2.1', jar: DEBIAN_H2_JAR, args: [] as string[], h2Jar: undefined as string | undefined },
  { label: '1.4.197 given with -h2jar', jar: H2_14_JAR, args: ['-h2jar', H2_14_JAR], h2Jar: H2_14_JAR },
];
for (const h2 of H2_JARS) describe.skipIf(!h2Available(h2.jar) && process.env.SVC_TEST_REQUIRE_DBS !== '1')(`migrate from H2 (${h2.label})`, () => {
  let box: Sandbox;
  let confDir: string;
  let h2Base: string;

  beforeEach(() => {
    box = sandbox();
    confDir = join(box.dir, 'hosta');
    mkdirSync(join(confDir, 'h2'), { recursive: true });
    h2Base = join(confDir, 'h2', 'waarp');
    const inst = writeInstance(confDir, { db: { driver: 'h2', url: `jdbc:h2:${h2Base};IFEXISTS=TRUE;AUTO_SERVER=TRUE`, user: 'waarp', password: 'h2pw' } });
    // The Java host's files carry settings svc does not act on.
    const server = readFileSync(join(confDir, 'server.xml'), 'utf8').replace('<timeoutcon>10000</timeoutcon>', '<timeoutcon>10000</timeoutcon><usefastmd5>false</usefastmd5><checkversion>false</checkversion>');
    writeFileSync(join(confDir, 'server.xml'), server);
    expect(readFileSync(join(confDir, 'client.xml'), 'utf8')).toContain(h2DbSection(h2Base, 'waarp', 'h2pw').replace(';IFEXISTS=TRUE;AUTO_SERVER=TRUE', ';IFEXISTS=TRUE;AUTO_SERVER=TRUE'));
    buildJavaH2(h2Base, 'waarp', 'h2pw', [
      hostInsert(inst.hostId, 6666, PASSWORD_HEX, true),
      hostInsert('partnera', 6667, PASSWORD_HEX),
      // A row the original's tables allow but svc cannot use: skipped, counted with its reason.
      hostInsert('', 6668, PASSWORD_HEX),
      ruleInsert('send', 1),
      ruleInsert('dbonly', 2, '<tasks><task><type>LOG</type><path>got #TRUEFULLPATH# & more</path><delay>0</delay></task></tasks>'),
      'INSERT INTO CONFIGURATION VALUES (1000, 2000, 300, 400, 5000, 1, \'hosta\');',
      'INSERT INTO HOSTCONFIG VALUES (\'<business></business>\', \'<roles><role><roleid>partnera</roleid><roleset>TRANSFER</roleset></role></roles>\', \'\', \'<root><version>3.0.12</version></root>\', 0, \'hosta\');',
      'INSERT INTO MULTIPLEMONITOR VALUES (0, 0, 0, \'hosta\');',
      ...[0, 1, 2].map((i) => runnerInsert({ id: 1693900000100n + BigInt(i), owner: 'hosta', requester: 'hosta', requested: 'partnera', rule: 'send', mode: 1, retrieve: true, globalStep: 4, globalLastStep: 4, rank: 3, blockSize: 65536, updatedInfo: 6, status: 'O', filename: `/out/f${i}.txt`, originalName: `f${i}.txt` })),
      runnerInsert({ id: PARTNER_ID, owner: 'hosta', requester: 'partnera', requested: 'hosta', rule: 'send', mode: 1, retrieve: false, globalStep: 4, globalLastStep: 4, rank: 1, blockSize: 65536, updatedInfo: 6, status: 'O', filename: '/in/from-partner.txt', originalName: 'from-partner.txt' }),
      runnerInsert({ id: 1693900000200n, owner: 'hosta', requester: 'hosta', requested: 'partnera', rule: 'dbonly', mode: 2, retrieve: false, globalStep: 2, globalLastStep: 2, rank: 7, blockSize: 65536, updatedInfo: 5, status: 'z', filename: '/work/1693900000200_123_big.bin.r66', originalName: 'big.bin' }),
    ], h2.jar);
  }, 60_000);

  afterEach(() => box.cleanup());

  it('dry run reports every table and changes nothing', async () => {
    const before = sha(`${h2Base}.mv.db`);
    const serverBefore = readFileSync(join(confDir, 'server.xml'), 'utf8');
    const report = await migrateHost({ serverXml: join(confDir, 'server.xml'), clientXml: join(confDir, 'client.xml'), dryRun: true, force: false, env: box.env, ...(h2.h2Jar !== undefined ? { h2Jar: h2.h2Jar } : {}) });
    const byTable = Object.fromEntries(report.tables.map((t) => [t.table, [t.read, t.written]]));
    expect(byTable).toEqual({ HOSTS: [3, 2], RULES: [2, 2], CONFIGURATION: [1, 1], HOSTCONFIG: [1, 1], MULTIPLEMONITOR: [1, 1], RUNNER: [5, 5] });
    expect(report.nextId).toBe(1693900000201n);
    expect(report.inFlight).toBe(1);
    const text = formatMigrationReport(report);
    expect(text).toMatch(/Dry run/);
    expect(text).toMatch(/HOSTS\s+3\s+2\s+1\s+1: HOSTID is empty/);
    expect(text).toMatch(/<limit\/usefastmd5>/);
    expect(text).toMatch(/<limit\/checkversion>/);
    expect(text).toMatch(h2.h2Jar === undefined ? /H2 2\.1\.\d+/ : /H2 1\.4\.197/);
    expect(existsSync(defaultSqliteFile(join(confDir, 'server.xml')))).toBe(false);
    expect(existsSync(join(confDir, 'server.xml.bak'))).toBe(false);
    expect(readFileSync(join(confDir, 'server.xml'), 'utf8')).toBe(serverBefore);
    expect(sha(`${h2Base}.mv.db`)).toBe(before);
  }, 60_000);

  it('copies every table into SQLite, repoints both files, keeps *.bak and the H2 file; a second run needs -force', async () => {
    const before = sha(`${h2Base}.mv.db`);
    const mtimeBefore = statSync(`${h2Base}.mv.db`).mtimeMs;
    const h2DirBefore = readdirSync(join(confDir, 'h2')).sort();
    const serverBefore = readFileSync(join(confDir, 'server.xml'), 'utf8');
    const clientBefore = readFileSync(join(confDir, 'client.xml'), 'utf8');
    // No -client: the client.xml beside server.xml is migrated with it.
    const r = await runCli('server', ['migrate', '-from', join(confDir, 'server.xml'), ...h2.args], box.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/RUNNER\s+5\s+5\s+0/);
    expect(r.stdout).toContain(`CONFDIR=${confDir} svc-r66server start`);
    expect(r.stdout).toMatch(/HOSTS\s+3\s+2\s+1\s+1: HOSTID is empty/);
    // The H2 file: same bytes, same time, nothing beside it (no lock, trace or SQLite file).
    expect(sha(`${h2Base}.mv.db`)).toBe(before);
    expect(statSync(`${h2Base}.mv.db`).mtimeMs).toBe(mtimeBefore);
    expect(readdirSync(join(confDir, 'h2')).sort()).toEqual(h2DirBefore);
    expect(readFileSync(join(confDir, 'server.xml.bak'), 'utf8')).toBe(serverBefore);
    expect(readFileSync(join(confDir, 'client.xml.bak'), 'utf8')).toBe(clientBefore);
    const db = defaultSqliteFile(join(confDir, 'server.xml'));
    expect(readFileSync(join(confDir, 'server.xml'), 'utf8')).toContain(`<dbserver>jdbc:sqlite:${db}</dbserver>`);
    expect(readFileSync(join(confDir, 'client.xml'), 'utf8')).toContain(`<dbserver>jdbc:sqlite:${db}</dbserver>`);

    const hosts = await sqliteRows<{ hostid: string; hostkey: Buffer; adminrole: bigint }>(db, 'SELECT hostid, hostkey, adminrole FROM hosts ORDER BY hostid');
    expect(hosts.map((h) => [h.hostid, Buffer.from(h.hostkey).toString('latin1'), Number(h.adminrole)])).toEqual([['hosta', PASSWORD_HEX, 1], ['partnera', PASSWORD_HEX, 0]]);
    const rules = await sqliteRows<{ idrule: string; rposttasks: string; recvpath: string | null }>(db, 'SELECT idrule, rposttasks, recvpath FROM rules ORDER BY idrule');
    expect(rules.map((x) => x.idrule)).toEqual(['dbonly', 'send']);
    expect(rules[0]!.rposttasks).toContain('got #TRUEFULLPATH# &amp; more');
    const limits = await sqliteRows(db, 'SELECT readgloballimit, writegloballimit, delaylimit FROM configuration');
    expect(limits.map((l) => Object.values(l).map(Number))).toEqual([[1000, 2000, 5000]]);
    const hc = await sqliteRows<{ roles: string; others: string }>(db, "SELECT roles, others FROM hostconfig WHERE hostid = 'hosta'");
    expect(hc[0]!.roles).toContain('<roleid>partnera</roleid>');
    expect(hc[0]!.others).toContain('<version>3.1.0</version>');
    const runner = await sqliteRows<{ specialid: string; rank: bigint; updatedinfo: bigint; filename: string; starttrans: string }>(db, 'SELECT CAST(specialid AS TEXT) AS specialid, rank, updatedinfo, filename, starttrans FROM runner ORDER BY specialid');
    expect(runner.map((x) => BigInt(x.specialid))).toEqual([1693900000100n, 1693900000101n, 1693900000102n, 1693900000200n, PARTNER_ID]);
    const inflight = runner.find((x) => BigInt(x.specialid) === 1693900000200n)!;
    expect([Number(inflight.rank), Number(inflight.updatedinfo), inflight.filename]).toEqual([7, 5, '/work/1693900000200_123_big.bin.r66']);
    // Steps, statuses, mode and block size as the Java host left them.
    const steps = await sqliteRows(db, 'SELECT globalstep, globallaststep, step, stepstatus, infostatus, modetrans, blocksz, retrievemode, ismoved, ownerreq, requester, requested, idrule, originalname FROM runner WHERE specialid = 1693900000200');
    expect(steps.map((x) => Object.values(x).map((v) => (typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? v.trim() : v)))).toEqual([[2, 2, 0, 'z', 'z', 2, 65536, 0, 0, 'hosta', 'hosta', 'partnera', 'dbonly', 'big.bin']]);
    expect(runner[0]!.starttrans).toBe('2026-01-05 10:12:01.500');
    const seq = await sqliteRows<{ seq: string }>(db, "SELECT CAST(seq AS TEXT) AS seq FROM sequences WHERE name = 'RUNSEQ'");
    expect(BigInt(seq[0]!.seq)).toBe(1693900000201n);

    // The client commands now use the migrated database: partnera (a database-only partner) is
    // known, so the command gets as far as connecting to it (nothing listens there).
    const client = await runCli('client', ['message', '-to', 'partnera', '-msg', 'hello'], { ...box.env, CONFDIR: confDir });
    expect(client.stdout + client.stderr).not.toMatch(/not initiali[sz]ed|H2 database|NotKnownHost/i);
    expect(client.stdout).toMatch(/ConnectionImpossible: cannot connect to partnera at 127\.0\.0\.1:6667/);

    const again = await runCli('server', ['migrate', '-from', join(confDir, 'server.xml'), ...h2.args], box.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already migrated.*-force/);
    const forced = await runCli('server', ['migrate', '-from', join(confDir, 'server.xml'), '-client', join(confDir, 'client.xml'), '-force', ...h2.args], box.env);
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(readFileSync(join(confDir, 'server.xml.bak'), 'utf8')).toBe(serverBefore);
    expect((await sqliteRows(db, 'SELECT specialid FROM runner')).length).toBe(5);
  }, 90_000);

  it('before the migration, the client commands and initdb refuse the H2 configuration instead of starting an empty database beside it', async () => {
    const env = { ...box.env, CONFDIR: confDir };
    const before = readdirSync(join(confDir, 'h2')).sort();
    const client = await runCli('client', ['message', '-to', 'partnera', '-msg', 'hello'], env);
    expect(client.code, client.stdout + client.stderr).not.toBe(0);
    expect(client.stderr).toContain(`${h2Base}.mv.db is a Java R66 host's H2 database`);
    expect(client.stderr).toContain('svc-r66server migrate');
    expect(client.stderr).not.toMatch(/initdb/);
    const initdb = await runCli('server', ['initdb'], env);
    expect(initdb.code, initdb.stdout + initdb.stderr).not.toBe(0);
    expect(initdb.stdout + initdb.stderr).toContain('svc-r66server migrate');
    expect(readdirSync(join(confDir, 'h2')).sort()).toEqual(before);
  }, 60_000);

  it('refuses while the H2 database is open (its lock file beside it), dry run too; goes once the lock is gone', async () => {
    writeFileSync(`${h2Base}.lock.db`, '#FileLock\nserver=127.0.0.1:9092\n');
    for (const extra of [['-dry-run'], []]) {
      const r = await runCli('server', ['migrate', '-from', join(confDir, 'server.xml'), ...extra, ...h2.args], box.env);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).toContain(`lock file ${h2Base}.lock.db`);
      expect(r.stderr).toMatch(/stop the Java server first/);
    }
    expect(existsSync(join(confDir, 'server.xml.bak'))).toBe(false);
    expect(existsSync(defaultSqliteFile(join(confDir, 'server.xml')))).toBe(false);
    rmSync(`${h2Base}.lock.db`);
    const r = await runCli('server', ['migrate', '-from', join(confDir, 'server.xml'), '-dry-run', ...h2.args], box.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }, 60_000);

  it.skipIf(h2.h2Jar === undefined)('reads an older PageStore file (<path>.h2.db) as well', async () => {
    rmSync(`${h2Base}.mv.db`);
    buildJavaH2(h2Base, 'waarp', 'h2pw', [hostInsert('hosta', 6666, PASSWORD_HEX, true), runnerInsert({ id: 42n, owner: 'hosta', requester: 'hosta', requested: 'hosta', rule: 'send', mode: 1, retrieve: true, globalStep: 4, globalLastStep: 4, rank: 1, blockSize: 65536, updatedInfo: 6, status: 'O', filename: '/out/old.txt', originalName: 'old.txt' })], h2.jar, ';MV_STORE=FALSE');
    expect(existsSync(`${h2Base}.h2.db`)).toBe(true);
    const report = await migrateHost({ serverXml: join(confDir, 'server.xml'), dryRun: true, force: false, env: box.env, h2Jar: h2.h2Jar });
    expect(report.source).toContain(`${h2Base}.h2.db`);
    expect(Object.fromEntries(report.tables.map((t) => [t.table, t.read]))).toMatchObject({ HOSTS: 1, RUNNER: 1 });
  }, 60_000);

  it('a wrong H2 password is reported as H2 says it, without a stack trace', async () => {
    writeFileSync(join(confDir, 'server.xml'), readFileSync(join(confDir, 'server.xml'), 'utf8').replace('<dbpasswd>h2pw</dbpasswd>', '<dbpasswd>wrong</dbpasswd>'));
    const err = await migrateHost({ serverXml: join(confDir, 'server.xml'), dryRun: false, force: false, env: box.env, ...(h2.h2Jar !== undefined ? { h2Jar: h2.h2Jar } : {}) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as Error).message).toMatch(/Wrong user name or password/);
    expect((err as Error).message).not.toMatch(/\n\s+at /);
    expect(existsSync(join(confDir, 'server.xml.bak'))).toBe(false);
  }, 60_000);
});
