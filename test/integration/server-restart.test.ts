// In-process restart (docs/decisions/0012-in-process-restart.md) through REST v2
// `PUT /v2/server/restart`, against a real svc-r66server process over real HTTP.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { loadClientConfig } from '../../src/config/index.js';
import { openClientNetwork } from '../../src/net/network.js';
import { deriveWireKey } from '../../src/protocol/index.js';
import { silentLogger } from '../../src/server/logger.js';
import { freePort } from '../../src/server/ports.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { PASSWORD_HEX, runCli, sandbox, spawnCli, sqliteRows, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';

let box: Sandbox;
let inst: Instance;
let server: Running | undefined;
let orderedServer: Running | undefined;

/** writeInstance's hosta is an administrator partner with the password "password". */
const AUTH = `Basic ${Buffer.from('hosta:password').toString('base64')}`;

/** Adds a REST listener (and optionally a business list) to the instance's server.xml. */
function configure(port: number, business: string[] = []): void {
  const file = join(inst.confDir, 'server.xml');
  const base = readFileSync(file, 'utf8').replace(/\s*<rest>[\s\S]*<\/business>/, '');
  writeFileSync(join(inst.confDir, 'rest.key'), 'a-signature-key-of-this-test');
  const rest = `<rest><restaddress>127.0.0.1</restaddress><restport>${port}</restport><restsignature>false</restsignature><restauthenticated>true</restauthenticated>`
    + `<restsigkey>${join(inst.confDir, 'rest.key')}</restsigkey>`
    + '<restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest>';
  const biz = `<business>${business.map((b) => `<businessid>${b}</businessid>`).join('')}</business>`;
  writeFileSync(file, base.replace('</config>', `  ${rest}\n  ${biz}\n</config>`));
}

const url = (port: number, path: string): string => `http://127.0.0.1:${port}${path}`;
const logLines = (s: Running, msg: string): number => s.stdout().split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).length;

beforeEach(async () => {
  box = sandbox();
  inst = writeInstance(join(box.dir, 'conf', 'hosta'));
});
afterEach(async () => {
  for (const r of [server, orderedServer]) if (r && r.child.exitCode === null) r.child.kill('SIGKILL');
  server = undefined;
  orderedServer = undefined;
  box.cleanup();
});

describe('PUT /v2/server/restart (rest-v2.md §10.11)', () => {
  it('stops in order, reads server.xml again, answers again on its port in the same process', async () => {
    const port = await freePort();
    configure(port, ['partnera']);
    const env = { ...box.env, CONFDIR: inst.confDir };
    expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml'), '-dir', inst.confDir], env)).code).toBe(0);
    const s = spawnCli('server', ['start'], env);
    server = s;
    await waitFor(() => s.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
    const status = await fetch(url(port, '/v2/server/status'), { headers: { authorization: AUTH } });
    expect(status.status).toBe(200);
    const startedBefore = logLines(s, 'component started');

    // The restart reads the file again: a new business partner lands in the host configuration.
    configure(port, ['partnera', 'hosta']);
    const restart = await fetch(url(port, '/v2/server/restart'), { method: 'PUT', headers: { authorization: AUTH } });
    expect(restart.status).toBe(204);
    await waitFor(() => logLines(s, 'server restarted') === 1, { what: 'the restart', timeoutMs: 20_000 });

    // Same process, every component stopped once and started again, in the same order.
    expect(s.child.exitCode).toBeNull();
    const components = (msg: string): string[] => s.stdout().split('\n').filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => JSON.parse(l).component as string);
    const started = components('component started');
    expect(started).toHaveLength(2 * startedBefore);
    expect(started.slice(startedBefore)).toEqual(started.slice(0, startedBefore));
    expect(components('component stopped')).toEqual(started.slice(0, startedBefore).reverse());

    const again = await fetch(url(port, '/v2/server/status'), { headers: { authorization: AUTH } });
    expect(again.status).toBe(200);
    const rows = await sqliteRows<{ business: string }>(inst.sqliteFile, "SELECT business FROM hostconfig WHERE hostid = 'hosta'");
    expect(rows[0]?.business).toContain('hosta');

    // The process still stops cleanly afterwards (the restarted components are the ones stopped).
    s.child.kill('SIGTERM');
    const end = await s.exited;
    expect(end.code).toBe(0);
    expect(components('component stopped')).toHaveLength(2 * startedBefore);
    expect(end.stdout).toContain('"msg":"server stopped"');
  });

  it('a server.xml that no longer loads keeps the previous configuration', async () => {
    const port = await freePort();
    configure(port);
    const env = { ...box.env, CONFDIR: inst.confDir };
    expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml')], env)).code).toBe(0);
    const s = spawnCli('server', ['start'], env);
    server = s;
    await waitFor(() => s.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });
    writeFileSync(join(inst.confDir, 'server.xml'), '<config><identity>');
    expect((await fetch(url(port, '/v2/server/restart'), { method: 'PUT', headers: { authorization: AUTH } })).status).toBe(204);
    await waitFor(() => logLines(s, 'server restarted') === 1, { what: 'the restart', timeoutMs: 20_000 });
    expect(s.stdout()).toContain('the configuration cannot be read again; the previous one is kept');
    expect((await fetch(url(port, '/v2/server/status'), { headers: { authorization: AUTH } })).status).toBe(200);
  });
});

describe('R66 shutdown order with restart (r66-protocol.md §9.12)', () => {
  it('a wrong key is refused; the right one restarts the server, which answers on its R66 port again', async () => {
    const r66 = await freePort();
    const server = join(inst.confDir, 'server.xml');
    writeFileSync(server, readFileSync(server, 'utf8').replace('<serverport>0</serverport>', `<serverport>${r66}</serverport>`));
    writeFileSync(join(inst.confDir, 'authent.xml'), `<authent><entry><hostid>hosta</hostid><address>127.0.0.1</address><port>${r66}</port><admin>true</admin><key>${PASSWORD_HEX}</key></entry></authent>\n`);
    const env = { ...box.env, CONFDIR: inst.confDir };
    expect((await runCli('server', ['initdb', '-auth', join(inst.confDir, 'authent.xml')], env)).code).toBe(0);
    const s = spawnCli('server', ['start'], env);
    orderedServer = s;
    await waitFor(() => s.stdout().includes('is running'), { what: 'the running banner', timeoutMs: 20_000 });

    // The client shares the server's identity (hosta), as the original's ServerShutdown tool does.
    const config = await loadClientConfig(join(inst.confDir, 'client.xml'));
    const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${inst.sqliteFile}`, 'svc', 'pw'), { hostId: 'hosta' });
    const open = () => openClientNetwork(config, { findHost: (id) => store.hosts.get(id), findRule: (id) => store.rules.get(id) }, { logger: silentLogger() });
    try {
      const first = await open();
      const refused = await first.pool.openChannel('hosta');
      await refused.channel.send({ kind: 'shutdown', key: deriveWireKey('not the password'), restart: true });
      expect(await refused.channel.receive(10_000, 'the refusal')).toMatchObject({ kind: 'error', message: 'Invalid Shutdown comand', code: { char: 'R' } });
      refused.channel.close();
      const order = await first.pool.openChannel('hosta');
      // writeInstance's serverpasswd is the encrypted "password".
      await order.channel.send({ kind: 'shutdown', key: deriveWireKey('password'), restart: true });
      await waitFor(() => logLines(s, 'server restarted') === 1, { what: 'the restart', timeoutMs: 20_000 });
      await first.pool.close();
      expect(s.child.exitCode).toBeNull();
      const second = await open();
      expect((await sendMessage(second.pool, 'hosta', 'after restart', 10_000)).answer).toBe('TestPacket: MSG:after restart:101');
      await second.pool.close();
    } finally {
      await store.close();
    }
  });
});
