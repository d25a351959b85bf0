// initdb / loadconf / start against every server dialect reachable (PostgreSQL here; see
// test/helpers/databases.ts), through the real CLI and a server.xml pointing at a private schema.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';
import { runCli, sandbox, spawnCli, writeInstance, type Sandbox } from './cli-helpers.js';

const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('$name', (dialect) => {
  let db: TestDatabase | undefined;
  let box: Sandbox;
  let env: NodeJS.ProcessEnv;
  let confDir: string;

  beforeAll(async () => {
    db = await dialect.create();
    box = sandbox();
    if (db === undefined || db.settings.dialect === 'sqlite') return;
    const s = db.settings;
    const url = `jdbc:postgresql://${s.host}:${s.port}/${s.database}?currentSchema=${s.schema}`;
    confDir = writeInstance(join(box.dir, 'conf', 'hosta'), { db: { driver: 'postgresql', url, user: s.user, password: s.password ?? 'unused' } }).confDir;
    env = { ...box.env, CONFDIR: confDir };
  });
  afterAll(async () => {
    await db?.drop();
    box?.cleanup();
  });

  it('initdb, loadconf, then start and stop', async (ctx) => {
    if (dialect.skip(ctx) || db === undefined) return;
    expect(await runCli('server', ['initdb'], env)).toMatchObject({ code: 0, stdout: 'Initializing database... done\n' });
    expect((await db.query<{ hostid: string }>('select hostid from hostconfig')).map((r) => r.hostid)).toEqual(['hosta']);
    expect((await runCli('server', ['loadconf'], env)).code).toBe(0);
    expect((await db.query<{ hostid: string }>('select hostid from hosts order by hostid')).map((r) => r.hostid)).toEqual(['hosta', 'partnera']);
    expect((await db.query<{ idrule: string }>('select idrule from rules order by idrule')).map((r) => r.idrule)).toEqual(['pull', 'send']);

    const server = spawnCli('server', ['start'], env);
    await waitFor(() => server.stdout().includes('is running'), { what: 'server running on PostgreSQL', timeoutMs: 20_000 });
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });
});
