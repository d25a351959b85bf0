// initdb / loadconf / start against every server dialect reachable (PostgreSQL and MariaDB; see
// test/helpers/databases.ts), through the real CLI and a server.xml pointing at a private schema
// or database. On MariaDB the test creates a user with a password: dbpasswd must not be empty
// (config.md §3.7, trap T14) while CI's root has none.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';
import { runCli, sandbox, spawnCli, writeInstance, type Sandbox } from './cli-helpers.js';

const dialects = testDialects().filter((d) => d.name === 'postgresql' || d.name === 'mariadb');

describe.each(dialects)('$name', (dialect) => {
  let db: TestDatabase | undefined;
  let box: Sandbox;
  let env: NodeJS.ProcessEnv;
  let confDir: string;
  let dropUser: (() => Promise<unknown>) | undefined;
  /** Stored table names: upper case on MariaDB (case-sensitive there), lower case on PostgreSQL. */
  const t = (name: string): string => (dialect.name === 'mariadb' ? name.toUpperCase() : name);

  beforeAll(async () => {
    db = await dialect.create();
    box = sandbox();
    if (db === undefined || db.settings.dialect === 'sqlite') return;
    const s = db.settings;
    let dbXml;
    if (dialect.name === 'postgresql') {
      const url = `jdbc:postgresql://${s.host}:${s.port}/${s.database}?currentSchema=${s.schema}`;
      dbXml = { driver: 'postgresql', url, user: s.user, password: s.password ?? 'unused' };
    } else {
      const user = `svc_u_${randomBytes(4).toString('hex')}`;
      const password = `pw-${randomBytes(6).toString('hex')}`;
      await db.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
      dropUser = () => db!.query(`DROP USER IF EXISTS '${user}'@'%'`);
      await db.query(`GRANT ALL PRIVILEGES ON \`${db.name}\`.* TO '${user}'@'%'`);
      dbXml = { driver: 'mariadb', url: `jdbc:mariadb://${s.host}:${s.port}/${db.name}`, user, password };
    }
    confDir = writeInstance(join(box.dir, 'conf', 'hosta'), { db: dbXml }).confDir;
    env = { ...box.env, CONFDIR: confDir };
  });
  afterAll(async () => {
    await dropUser?.().catch(() => undefined);
    await db?.drop();
    box?.cleanup();
  });

  it('initdb, loadconf, then start and stop', async (ctx) => {
    if (dialect.skip(ctx) || db === undefined) return;
    expect(await runCli('server', ['initdb'], env)).toMatchObject({ code: 0, stdout: 'Initializing database... done\n' });
    expect((await db.query<{ hostid: string }>(`select hostid from ${t('hostconfig')}`)).map((r) => r.hostid)).toEqual(['hosta']);
    expect((await runCli('server', ['loadconf'], env)).code).toBe(0);
    expect((await db.query<{ hostid: string }>(`select hostid from ${t('hosts')} order by hostid`)).map((r) => r.hostid)).toEqual(['hosta', 'partnera']);
    expect((await db.query<{ idrule: string }>(`select idrule from ${t('rules')} order by idrule`)).map((r) => r.idrule)).toEqual(['pull', 'send']);

    const server = spawnCli('server', ['start'], env);
    await waitFor(() => server.stdout().includes('is running'), { what: `server running on ${dialect.name}`, timeoutMs: 20_000 });
    expect(server.stdout()).toContain(`database jdbc:${dialect.name}://`);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });
});
