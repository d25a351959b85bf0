// server.xml `serveraddresses`: the plain listener binds each listed address, on the same port, and
// only those (r66-protocol.md §1.1, config.md §3).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { encryptPasswordHex, loadServerConfig } from '../../src/config/index.js';
import type { Host } from '../../src/model/host.js';
import { openClientNetwork, R66Network, type NetLookups } from '../../src/net/network.js';
import type { ConnectionPool } from '../../src/net/pool.js';
import { makeInstance, SAMPLE_KEY, type Instance } from '../config/instance.js';
import { hostEntry, silent } from './harness.js';

function refused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port }, () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('serveraddresses', () => {
  let inst: Instance;
  let network: R66Network;
  let pool: ConnectionPool;
  const hosts = new Map<string, Host>();
  const lookups: NetLookups = { findHost: async (id) => hosts.get(id), findRule: async () => undefined };
  const key = (pwd: string): Buffer => Buffer.from(encryptPasswordHex(SAMPLE_KEY, pwd), 'latin1');

  beforeAll(async () => {
    inst = await makeInstance();
    const file = await inst.sample('server.xml', (xml) =>
      xml
        .replace('<serverport>6666</serverport>', '<serverport>0</serverport><serveraddresses>127.0.0.1, ::1,127.0.0.2</serveraddresses>')
        .replace(/<usessl>True<\/usessl>/i, '<usessl>False</usessl>'),
    );
    const config = await loadServerConfig(file);
    expect(config.network.serverAddresses.map((a) => a.trim())).toEqual(['127.0.0.1', '::1', '127.0.0.2']);
    network = new R66Network(config, () => lookups, silent);
    await network.start();
    const port = network.ports[0]!;
    hosts.set('svc1', hostEntry('svc1', port, { hostKey: key('server-pwd') }));
    hosts.set('peer', hostEntry('peer', 0, { hostKey: key('peer-pwd') }));
    // The same server seen at each of its addresses (three partner entries, one key).
    hosts.set('svc1-v6', { ...hostEntry('svc1-v6', port, { hostKey: key('server-pwd') }), address: '::1' });
    hosts.set('svc1-2', { ...hostEntry('svc1-2', port, { hostKey: key('server-pwd') }), address: '127.0.0.2' });
    ({ pool } = await openClientNetwork({ ...config, hostId: 'peer' }, lookups, { logger: silent }));
  });
  afterAll(async () => {
    await pool?.close();
    await network?.stop();
    await inst?.cleanup();
  });

  it('binds every listed address on one port, and says so', () => {
    const ports = network.ports;
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
    expect(network.describe()).toEqual([`R66 plain listening on port ${ports.join(', ')}`]);
  });

  it('serves the R66 protocol on each address', async () => {
    // The server answers as svc1 whatever address was used (its Authent names svc1 each time).
    expect((await sendMessage(pool, 'svc1', 'v4')).answer).toBe('TestPacket: MSG:v4:101');
    expect((await sendMessage(pool, 'svc1-v6', 'v6')).answer).toBe('TestPacket: MSG:v6:101');
    expect((await sendMessage(pool, 'svc1-2', 'second')).answer).toBe('TestPacket: MSG:second:101');
  });

  it('does not listen on an address that is not listed', async () => {
    const port = network.ports[0]!;
    expect(await refused('127.0.0.3', port)).toBe(true);
    expect(await refused('127.0.0.2', port)).toBe(false);
    expect(await refused('::1', port)).toBe(false);
  });
});
