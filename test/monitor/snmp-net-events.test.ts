/**
 * Notifications sent from the R66 network rather than the transfer engine (monitoring.md §B.5):
 * shutdown order, overload (connection limit), administration orders through REST (configuration export,
 * bandwidth change), refused authentication, black-listed peer and TLS handshake failure, from a server
 * started in this process with snmpconfig.xml naming a snmptrapd target, received by Debian's snmptrapd.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClientConfig, loadServerConfig } from '../../src/config/index.js';
import { Digest } from '../../src/model/digest.js';
import { openClientNetwork } from '../../src/net/network.js';
import { loadTlsMaterial } from '../../src/net/tls.js';
import { authentPacket, buildVersionString, deriveWireKey, encodeFrame, NOCHANNEL } from '../../src/protocol/index.js';
import { runDatabaseTool } from '../../src/server/database-tool.js';
import { freePort } from '../../src/server/ports.js';
import { ServerRuntime } from '../../src/server/runtime.js';
import { PASSWORD_HEX, sandbox, writeInstance, type Instance, type Sandbox } from '../cli/cli-helpers.js';
import { silent } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { makeHost } from '../net/harness.js';
import { RawPeer } from '../net/raw-peer.js';
import { freeUdpPort, startTrapd } from './snmp-helpers.js';

const ROOT = '1.3.6.1.4.1.66666.66';

describe('SNMP notifications from the R66 network (snmptrapd)', () => {
  let box: Sandbox;
  let inst: Instance;
  let dir: string;
  let trapd: Awaited<ReturnType<typeof startTrapd>>;
  let runtime: ServerRuntime;
  let r66: number;
  let rest: number;

  beforeAll(async () => {
    box = sandbox();
    inst = writeInstance(join(box.dir, 'conf', 'hosta'));
    dir = await mkdtemp(join(tmpdir(), 'svc-snmp-net-'));
    trapd = await startTrapd(dir);
    r66 = await freePort();
    rest = await freePort();
    const file = join(inst.confDir, 'server.xml');
    const snmpFile = join(inst.confDir, 'snmpconfig.xml');
    writeFileSync(snmpFile, `<snmpconfig><config><localaddress>udp:127.0.0.1/${await freeUdpPort()}</localaddress><usetrap>True</usetrap><trapinformlevel>3</trapinformlevel></config>
      <targets><target><name>nms</name><domain>UdpIpv4</domain><address>127.0.0.1/${trapd.port}</address><isv2>True</isv2></target></targets></snmpconfig>`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('<serverport>0</serverport>', `<serverport>${r66}</serverport>`)
      .replace('</server>', `<snmpconfig>${snmpFile}</snmpconfig></server>`)
      // Three connections per address: the fourth is refused (overload notification).
      .replace('</config>', `<security><maxconnectionsperaddress>3</maxconnectionsperaddress></security>
        <rest><restaddress>127.0.0.1</restaddress><restport>${rest}</restport><restauthenticated>true</restauthenticated>
        <restmethod><restname>ALL</restname><restcrud>CRUD</restcrud></restmethod></rest></config>`));
    writeFileSync(join(inst.confDir, 'authent.xml'), `<authent><entry><hostid>hosta</hostid><address>127.0.0.1</address><port>${r66}</port><admin>true</admin><key>${PASSWORD_HEX}</key></entry></authent>\n`);
    await runDatabaseTool({ configFile: file, side: 'server', initdb: true, authFile: join(inst.confDir, 'authent.xml'), log: silent });
    runtime = new ServerRuntime(await loadServerConfig(file), silent);
    await runtime.start();
    await waitFor(() => trapd.out().includes('Startup Service'), { timeoutMs: 5000, what: 'the coldStart trap' });
  });
  afterAll(async () => {
    await runtime?.stop();
    await trapd?.stop();
    await rm(dir, { recursive: true, force: true });
    box?.cleanup();
  });

  it('an accepted shutdown order: "Shutdown Order received effective in <timeoutcon> ms" with the requesting host', async () => {
    // The client shares the server's identity (hosta), as the original's ServerShutdown tool does.
    const config = await loadClientConfig(join(inst.confDir, 'client.xml'));
    const client = await openClientNetwork(config, { findHost: (id) => runtime.store.hosts.get(id), findRule: (id) => runtime.store.rules.get(id) }, { logger: silent });
    try {
      const order = await client.pool.openChannel('hosta');
      // writeInstance's serverpasswd is the encrypted "password"; restart keeps the server in this process.
      await order.channel.send({ kind: 'shutdown', key: deriveWireKey('password'), restart: true });
      await waitFor(() => trapd.out().includes('Shutdown Order received effective in 10000 ms'), { timeoutMs: 5000, what: 'the shutdown order notification' });
    } finally {
      await client.pool.close();
    }
    expect(trapd.out()).toContain(`.${ROOT}.5.1.1.1 = STRING: "TrapShutdown"`);
    await waitFor(() => runtime.starts === 2 && trapd.out().split('Startup Service').length === 3, { timeoutMs: 20_000, what: 'the restart' });
  });

  it('a connection over the per-address limit: an overloaded notification', async () => {
    // Before the black-listing test below: a banned address never reaches the limits.
    const held = await Promise.all([1, 2, 3].map(() => RawPeer.open(r66)));
    try {
      const refused = await RawPeer.open(r66);
      await refused.closed;
      await waitFor(() => trapd.out().includes('"r66-listener: connection refused"'), { timeoutMs: 5000, what: 'the overloaded notification' });
      expect(trapd.out()).toContain(`.${ROOT}.5.1.4.1 = STRING: "TrapOverloaded"`);
      expect(trapd.out()).toContain('"maxconnectionsperaddress 3 reached"');
    } finally {
      for (const p of held) p.destroy();
      await Promise.all(held.map((p) => p.closed));
    }
  });

  it('administration orders through REST v2: configuration export and bandwidth change, with the user', async () => {
    // writeInstance's hosta is an administrator partner with the password "password".
    const headers = { authorization: `Basic ${Buffer.from('hosta:password').toString('base64')}` };
    const exported = await fetch(`http://127.0.0.1:${rest}/v2/server/config?exportHosts=true`, { headers });
    expect(exported.status).toBe(200);
    await waitFor(() => trapd.out().includes('"Export Configuration Order received"'), { timeoutMs: 5000, what: 'the export order notification' });
    expect(trapd.out()).toContain(`.${ROOT}.5.1.3.1 = STRING: "TrapWarning"`);
    const limits = await fetch(`http://127.0.0.1:${rest}/v2/limits`, {
      method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ upGlobalLimit: 20000, downGlobalLimit: 10000, upSessionLimit: 2000, downSessionLimit: 1000 }),
    });
    expect(limits.status).toBe(201);
    await waitFor(() => trapd.out().includes('"Change Bandwidth Limit Order received: Global 20000:10000 (W:R) Local 2000:1000 (W:R)"'), { timeoutMs: 5000, what: 'the bandwidth order notification' });
    expect(trapd.out()).toContain('"hosta"');
  });

  it('a refused authentication, then the black-listed address: error notifications', async () => {
    const version = buildVersionString({ hostId: 'nobody', finalHash: true, digest: Digest.MD5, proxified: false, compression: false });
    const refused = await RawPeer.open(r66);
    refused.write(encodeFrame(NOCHANNEL, 7, authentPacket('nobody', 'x', version, 0, 7)));
    expect(await refused.next()).not.toBeNull();
    refused.destroy();
    await waitFor(() => trapd.out().includes('Connection not allowed from 127.0.0.1 since'), { timeoutMs: 5000, what: 'the refused authentication notification' });
    expect(trapd.out()).toContain(`.${ROOT}.5.1.2.1 = STRING: "nobody"`);
    const banned = await RawPeer.open(r66);
    await banned.closed;
    await waitFor(() => trapd.out().includes('Black Listed connection temptative'), { timeoutMs: 5000, what: 'the black-listed peer notification' });
    expect(trapd.out()).toContain('"During connection"');
  });

  it('a TLS handshake that fails: "SSL Connection Error"', async () => {
    // The PEM keystore holds the key and its certificate (openssl writes both to one file here).
    const pem = join(dir, 'b.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', pem, '-out', join(dir, 'b.crt'), '-days', '2', '-subj', '/CN=hostb'], { stdio: 'pipe' });
    writeFileSync(pem, readFileSync(pem, 'utf8') + readFileSync(join(dir, 'b.crt'), 'utf8'));
    const tls = await loadTlsMaterial({ keyPath: pem, trustKeyPath: join(dir, 'b.crt') });
    const b = await makeHost('hostb', [], { listen: true, tls, sslHostId: 'hostb-ssl', notify: runtime.notifications.notify });
    try {
      // Plain bytes on the TLS port: the handshake fails at once.
      const peer = await RawPeer.open(b.listener!.port);
      peer.write(Buffer.from('not a TLS client hello\r\n\r\n'));
      await peer.closed;
      await waitFor(() => trapd.out().includes('"SSL Connection Error"'), { timeoutMs: 5000, what: 'the TLS failure notification' });
      expect(trapd.out()).toContain('"During Handshake"');
    } finally {
      await b.close();
    }
  });

  it('the same notification repeated within a second is sent once', async () => {
    for (let i = 0; i < 5; i++) runtime.notifications.notify('error', 'repeated alert', 'x');
    await waitFor(() => trapd.out().includes('"repeated alert"'), { timeoutMs: 5000, what: 'the first alert' });
    runtime.notifications.notify('error', 'a later alert', 'x');
    await waitFor(() => trapd.out().includes('"a later alert"'), { timeoutMs: 5000, what: 'the later alert' });
    expect(trapd.out().split('"repeated alert"').length - 1).toBe(1);
  });
});
