// `svc-r66server migrate` on a Java host using PostgreSQL or MariaDB: the database is used in place
// (tables checked, schema upgraded, rows counted), no file is changed, and it can run again.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatMigrationReport, migrateHost } from '../../src/admin/migration/index.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { sandbox, writeInstance, type Sandbox } from '../cli/cli-helpers.js';

// server.xml needs a database password; the test MariaDB's root has none, so the MariaDB case
// logs in as a user of its own, made for the test database and dropped with it.
const MARIADB_USER = `svcmig${process.pid}`;
const MARIADB_PASSWORD = 'migrate-pw';

function jdbcOf(db: TestDatabase): { driver: string; url: string; user: string; password: string } {
  const s = db.settings;
  if (s.dialect === 'sqlite') throw new Error('a server dialect was expected');
  const query = s.dialect === 'postgresql' ? `?currentSchema=${s.schema ?? ''}` : '';
  const login = s.dialect === 'postgresql' ? { user: s.user ?? 'root', password: s.password ?? 'unused-with-trust' } : { user: MARIADB_USER, password: MARIADB_PASSWORD };
  return { driver: s.dialect, url: `jdbc:${s.dialect}://${s.host}:${s.port}/${s.database}${query}`, ...login };
}

for (const dialect of testDialects().filter((d) => d.name !== 'sqlite')) {
  describe(`migrate in place on ${dialect.name}`, () => {
    let db: TestDatabase | undefined;
    let box: Sandbox;
    beforeAll(async () => {
      box = sandbox();
      db = await dialect.create();
      if (db === undefined) return;
      const store = await openStore(db.settings, { hostId: 'hosta' });
      await store.initSchema({ hostId: 'hosta' });
      await store.runner.insert(transferRecord(5n, { ownerReq: 'hosta', requester: 'hosta', requested: 'partnera', updatedInfo: 5 }));
      await store.hostConfigs.upsert({ hostId: 'hosta', business: '', roles: '', aliases: '', others: '<root><version>3.0.12</version></root>', updatedInfo: 0 });
      await store.close();
      if (dialect.name === 'mariadb') {
        await db.query(`CREATE USER '${MARIADB_USER}'@'%' IDENTIFIED BY '${MARIADB_PASSWORD}'`);
        await db.query(`GRANT ALL PRIVILEGES ON \`${db.settings.dialect === 'sqlite' ? '' : db.settings.database}\`.* TO '${MARIADB_USER}'@'%'`);
      }
    }, 60_000);
    afterAll(async () => {
      if (dialect.name === 'mariadb') await db?.query(`DROP USER IF EXISTS '${MARIADB_USER}'@'%'`).catch(() => undefined);
      await db?.drop();
      box?.cleanup();
    });

    it('checks and upgrades the schema, counts the rows, changes no file', async (ctx) => {
      if (dialect.skip(ctx) || db === undefined) return;
      const confDir = join(box.dir, dialect.name);
      const j = jdbcOf(db);
      writeInstance(confDir, { db: { driver: j.driver, url: j.url, user: j.user, password: j.password } });
      const before = readFileSync(join(confDir, 'server.xml'), 'utf8');
      const report = await migrateHost({ serverXml: join(confDir, 'server.xml'), clientXml: join(confDir, 'client.xml'), dryRun: false, force: false, env: box.env });
      expect(report.inPlace).toBe(true);
      expect(report.tables.map((t) => [t.table, t.read])).toEqual([['HOSTS', 0], ['RULES', 0], ['CONFIGURATION', 0], ['HOSTCONFIG', 1], ['MULTIPLEMONITOR', 1], ['RUNNER', 1]]);
      expect(formatMigrationReport(report)).toMatch(/MULTIPLEMONITOR\s+1\s+-\s+0\s+this host's row, used in place/);
      expect(report.inFlight).toBe(1);
      expect(report.files.join('\n')).toMatch(/schema 3\.0\.12 -> 3\.1\.0/);
      expect(readFileSync(join(confDir, 'server.xml'), 'utf8')).toBe(before);
      expect(existsSync(join(confDir, 'server.xml.bak'))).toBe(false);
      const store = await openStore(db.settings, { hostId: 'hosta' });
      expect(await store.schemaVersion()).toBe('3.1.0');
      await store.close();
      // In place, a second run is harmless and allowed.
      const again = await migrateHost({ serverXml: join(confDir, 'server.xml'), dryRun: true, force: false, env: box.env });
      expect(again.files.join('\n')).toMatch(/schema 3\.1\.0 \(current\)/);
    }, 60_000);
  });
}
