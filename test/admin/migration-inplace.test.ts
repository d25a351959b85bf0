// `svc-r66server migrate` on a Java host using PostgreSQL: the database is used in place (tables
// checked, schema upgraded, rows counted), no file is changed, and it can run again. (MariaDB takes
// the same path; its test server needs a user with a password, which this file does not create.)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateHost } from '../../src/admin/migration/index.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { sandbox, writeInstance, type Sandbox } from '../cli/cli-helpers.js';

function jdbcOf(db: TestDatabase): { driver: string; url: string; user: string; password: string } {
  const s = db.settings;
  if (s.dialect === 'sqlite') throw new Error('a server dialect was expected');
  const query = s.dialect === 'postgresql' ? `?currentSchema=${s.schema ?? ''}` : '';
  return { driver: s.dialect, url: `jdbc:${s.dialect}://${s.host}:${s.port}/${s.database}${query}`, user: s.user ?? 'root', password: s.password ?? 'unused-with-trust' };
}

for (const dialect of testDialects().filter((d) => d.name === 'postgresql')) {
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
    }, 60_000);
    afterAll(async () => {
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
      expect(report.tables.find((t) => t.table === 'RUNNER')?.read).toBe(1);
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
