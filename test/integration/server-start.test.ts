import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasNoStack, runCli, sandbox, spawnCli, sqliteRows, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { isAlive, readPid } from '../../src/fs/pid-file.js';
import { readCryptoKeyFile, readGgpFile } from '../../src/config/crypto.js';
import { waitFor } from '../helpers/wait.js';

let box: Sandbox;
let inst: Instance;
let env: NodeJS.ProcessEnv;
const running: Running[] = [];

beforeEach(async () => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  env = { ...box.env, INSTANCES_CONF: join(box.dir, 'conf') };
});
afterEach(async () => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
  const pid = readPid(join(inst.confDir, 'r66server.pid'));
  if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
  box.cleanup();
});

async function initdbWithPartners(): Promise<void> {
  const r = await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env);
  expect(r.code).toBe(0);
}

function startForeground(extraEnv: NodeJS.ProcessEnv = {}): Running {
  const r = spawnCli('server', ['start'], { ...env, ...extraEnv });
  running.push(r);
  return r;
}

describe('svc-r66server start in the foreground (cli.md §2.1)', () => {
  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)('runs until %s, then stops in order and exits 0', async (signal) => {
    await initdbWithPartners();
    const server = startForeground();
    await waitFor(() => server.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
    expect(server.stdout()).toContain('svc-r66 server starts for hosta');
    server.child.kill(signal);
    const result = await server.exited;
    expect(result.code).toBe(0);
    const components = (msg: string): string[] => result.stdout.split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l).component);
    const started = components('component started');
    expect(started.slice(0, 2)).toEqual(['database', 'identity']);
    expect(components('component stopped')).toEqual([...started].reverse());
    expect(result.stdout).toContain('"msg":"server stopped"');
  });

  it('runs without a database: partners from identity/authentfile (config.md §3.0)', async () => {
    writeInstance(inst.confDir, { db: null });
    const server = startForeground();
    await waitFor(() => server.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
    expect(server.stdout()).toContain('no database');
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
  });

  it('refuses to start when its own host id is not in the partner table (exit 1)', async () => {
    expect((await runCli('server', ['initdb'], env)).code).toBe(0);
    const result = await startForeground().exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot start for hosta');
    expect(result.stderr).toContain('cannot find authentication for current host hosta');
    expect(hasNoStack(result.stderr)).toBe(true);
  });

  it('a database without tables stops the start with exit 1 and says to run initdb', async () => {
    const result = await startForeground().exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`svc-r66 server cannot start for hosta: database: database jdbc:sqlite:${inst.sqliteFile} is not initialised (its tables do not exist): run svc-r66server initdb -auth FILE -dir DIR (or initdb, then loadconf)\n`);
  });

  it('an invalid server.xml stops the start with exit 1 and a message naming the file', async () => {
    writeFileSync(join(inst.confDir, 'server.xml'), '<config><identity>');
    const result = await startForeground().exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot start .*server\.xml/);
    expect(hasNoStack(result.stderr)).toBe(true);
  });

  it('both usenossl and usessl false: exit 255', async () => {
    writeInstance(inst.confDir, { usenossl: false, usessl: false });
    const result = await startForeground().exited;
    expect(result.code).toBe(255);
    expect(result.stderr).toContain('usenossl');
  });

  it('an unreachable database stops the start with exit 1, password not shown', async () => {
    writeInstance(inst.confDir, { db: { driver: 'postgresql', url: 'jdbc:postgresql://127.0.0.1:1/x', password: 'topsecret' } });
    const result = await startForeground().exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot start for hosta');
    expect(result.stderr + result.stdout).not.toContain('topsecret');
  });
});

describe('service mode: start / status / stop / restart with the PID file (cli.md §2.1-2.4)', () => {
  const pidFile = (): string => join(inst.confDir, 'r66server.pid');

  it('starts in the background, reports status, stops with done', async () => {
    await initdbWithPartners();
    const start = await runCli('server', ['start'], { ...env, SVC_SERVICE: '1' });
    expect(start.code).toBe(0);
    expect(start.stdout).toContain('started in the background');
    const pid = readPid(pidFile());
    expect(pid).toBeDefined();
    expect(isAlive(pid as number)).toBe(true);

    const status = await runCli('server', ['status'], env);
    expect(status).toMatchObject({ code: 0, stdout: 'Status of hosta R66 Server... running\n' });

    // A second start is refused while the first runs.
    const again = await runCli('server', ['start'], { ...env, SVC_SERVICE: '1' });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already running');

    const stop = await runCli('server', ['stop'], env);
    expect(stop).toMatchObject({ code: 0, stdout: 'Stoping hosta R66 Server... done\n' });
    expect(isAlive(pid as number)).toBe(false);
    expect(existsSync(pidFile())).toBe(false);
    const log = readFileSync(join(inst.serverHome, 'log', 'r66server.log'), 'utf8');
    expect(log).toContain('"msg":"server stopped"');

    expect(await runCli('server', ['status'], env)).toMatchObject({ code: 1, stdout: 'Status of hosta R66 Server... not running\n' });
    expect(await runCli('server', ['stop'], env)).toMatchObject({ code: 1, stdout: 'Stoping hosta R66 Server... no process seems to be running\n' });
  });

  it('restart replaces the running server; PIDFILE is honoured', async () => {
    await initdbWithPartners();
    const custom = join(box.dir, 'custom.pid');
    const svc = { ...env, SVC_SERVICE: '1', PIDFILE: custom };
    expect((await runCli('server', ['start'], svc)).code).toBe(0);
    const first = readPid(custom) as number;
    const restart = await runCli('server', ['restart'], svc);
    expect(restart.code).toBe(0);
    expect(restart.stdout).toContain('done');
    const second = readPid(custom) as number;
    expect(second).not.toBe(first);
    expect(isAlive(first)).toBe(false);
    expect(isAlive(second)).toBe(true);
    // SIGTERM straight to the server: it removes its own PID file on the way out.
    process.kill(second, 'SIGTERM');
    await waitFor(() => !existsSync(custom) && !isAlive(second), { what: 'PID file removed and process gone' });
  });

  it('a background start that fails returns 1 and leaves no PID file', async () => {
    expect((await runCli('server', ['initdb'], env)).code).toBe(0); // no partners: the start fails
    const start = await runCli('server', ['start'], { ...env, SVC_SERVICE: '1' });
    expect(start.code).toBe(1);
    expect(start.stderr).toContain('cannot start');
    expect(existsSync(pidFile())).toBe(false);
  });
});

describe('embedded default home (no installed instance)', () => {
  it('first start creates ~/.svc-r66 and runs; the second start reuses it', async () => {
    const home = join(box.env.HOME as string, '.svc-r66');
    const first = spawnCli('server', ['start'], box.env);
    running.push(first);
    await waitFor(() => first.stdout().includes('is running'), { what: 'first start', timeoutMs: 30_000 });
    expect(first.stdout()).toContain(`Created the svc-r66 home ${home}`);
    const hostId = /host id (svc-[^)]+)\)/.exec(first.stdout())?.[1] as string;
    expect(hostId).toMatch(/^svc-/);
    for (const f of ['server.xml', 'client.xml', 'authent.xml', 'cryptokey.des', 'admin.ggp', `${hostId}.ggp`, 'restsigning.key', 'send.rule.xml', 'recv.rule.xml', 'db/svc-r66.sqlite']) {
      expect(existsSync(join(home, f)), f).toBe(true);
    }
    expect(existsSync(join(home, 'server.xml.new'))).toBe(false);
    const db = join(home, 'db', 'svc-r66.sqlite');
    expect(await sqliteRows(db, 'select hostid, port, isclient, adminrole from hosts order by hostid')).toEqual([
      { hostid: 'admin', port: -1, isclient: 1, adminrole: 1 }, { hostid: hostId, port: expect.any(Number), isclient: 0, adminrole: 1 },
    ]);
    expect(await sqliteRows(db, 'select idrule, modetrans from rules order by idrule')).toEqual([{ idrule: 'recv', modetrans: 2 }, { idrule: 'send', modetrans: 1 }]);
    const serverXml = readFileSync(join(home, 'server.xml'), 'utf8');
    expect(serverXml).toMatch(/<serverport>\d+<\/serverport>/);
    expect(readFileSync(join(home, 'admin.ggp'), 'utf8')).toMatch(/^[0-9a-f]+$/);

    // REST v1/v2 on the loopback address, user admin with the password of admin.ggp.
    const url = /REST API {7}(http:\/\/127\.0\.0\.1:\d+\/v2\/) \(and v1\), user 'admin'/.exec(first.stdout())?.[1] as string;
    expect(url).toBeDefined();
    expect(first.stdout()).toContain(`REST HTTP listening on 127.0.0.1:${new URL(url).port}: ${url}`);
    const password = await readGgpFile(join(home, 'admin.ggp'), await readCryptoKeyFile(join(home, 'cryptokey.des')));
    const basic = (user: string, pw: string): Record<string, string> => ({ authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}` });
    expect((await fetch(`${url}hosts`)).status).toBe(401);
    expect((await fetch(`${url}hosts`, { headers: basic('admin', 'wrong') })).status).toBe(401);
    const hosts = await fetch(`${url}hosts`, { headers: basic('admin', password) });
    expect(hosts.status).toBe(200);
    expect(((await hosts.json()) as { results: { name: string }[] }).results.map((h) => h.name)).toEqual(['admin', hostId]);
    // Signatures are on, so REST v1 does not take the user name alone (rest-v1.md §4.2).
    const v1 = await fetch(new URL('/hosts', url), { headers: { 'x-auth-user': 'admin', 'x-auth-timestamp': new Date().toISOString() } });
    expect(v1.status).toBe(401);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    const second = spawnCli('server', ['start'], box.env);
    running.push(second);
    await waitFor(() => second.stdout().includes('is running'), { what: 'second start', timeoutMs: 30_000 });
    expect(second.stdout()).not.toContain('Created');
    expect(second.stdout()).toContain(`starts for ${hostId}`);
    expect(readFileSync(join(home, 'server.xml'), 'utf8')).toBe(serverXml);
    second.child.kill('SIGINT');
    expect((await second.exited).code).toBe(0);

    // The client side of the home works too.
    expect((await runCli('client', ['loadconf'], box.env)).code).toBe(0);
  });

  it('a home that cannot be completed is left as it was (exit 1, nothing half-made)', async () => {
    const dir = join(box.dir, 'blocked');
    mkdirSync(dir);
    writeFileSync(join(dir, 'db'), 'a file where the database directory should go');
    const r = await runCli('server', ['-home', dir, 'start'], box.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot create the svc-r66 home ${dir}`);
    expect(hasNoStack(r.stderr)).toBe(true);
    expect(readdirSync(dir)).toEqual(['db']);
  });

  it('a home under /proc fails fast with one message (no endless mkdir)', async () => {
    const started = Date.now();
    const r = await runCli('server', ['-home', '/proc/svc-no-such-home', 'start'], box.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("svc-r66server: cannot create the svc-r66 home /proc/svc-no-such-home: ENOENT: no such file or directory, mkdir '/proc/svc-no-such-home'\n");
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 20_000);

  it('-home DIR and SVC_R66_HOME choose the home', async () => {
    const dir = join(box.dir, 'elsewhere');
    const server = spawnCli('server', ['-home', dir, 'start'], box.env);
    running.push(server);
    await waitFor(() => server.stdout().includes('is running'), { what: 'start with -home', timeoutMs: 30_000 });
    expect(server.stdout()).toContain(`Created the svc-r66 home ${dir}`);
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    const status = await runCli('server', ['status'], { ...box.env, SVC_R66_HOME: dir });
    expect(status).toMatchObject({ code: 1, stdout: 'Status of elsewhere R66 Server... not running\n' });
  });
});
