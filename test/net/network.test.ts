import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getFileInfo } from '../../src/client/getinfo.js';
import { sendMessage } from '../../src/client/message.js';
import { encryptPasswordHex, loadServerConfig, type ServerConfig } from '../../src/config/index.js';
import type { Host } from '../../src/model/host.js';
import { openClientNetwork, R66Network, type NetLookups } from '../../src/net/network.js';
import type { ConnectionPool } from '../../src/net/pool.js';
import { makeInstance, SAMPLE_KEY, type Instance } from '../config/instance.js';
import { hostEntry, rule, silent } from './harness.js';

// The server built from a real server.xml (config.md §13.1 sample): plain and TLS listeners with the
// JKS stores of the fixtures, partners and rules from in-memory lookups.
describe('R66Network from server.xml', () => {
  let inst: Instance;
  let config: ServerConfig;
  let network: R66Network;
  let pool: ConnectionPool;
  const hosts = new Map<string, Host>();
  const lookups: NetLookups = { findHost: async (id) => hosts.get(id), findRule: async (id) => (id === 'send' ? rule('send') : undefined) };
  const key = (pwd: string): Buffer => Buffer.from(encryptPasswordHex(SAMPLE_KEY, pwd), 'latin1');

  beforeAll(async () => {
    inst = await makeInstance();
    await copyFile(new URL('./fixtures/hosta-key.jks', import.meta.url), path.join(inst.certs, 'key.jks'));
    await copyFile(new URL('./fixtures/trust.jks', import.meta.url), path.join(inst.certs, 'trustkey.jks'));
    const file = await inst.sample('server.xml', (xml) =>
      xml
        .replace('<serverport>6666</serverport>', '<serverport>0</serverport>')
        .replace('<serversslport>6667</serversslport>', '<serversslport>0</serversslport>')
        .replace('<keystorepass>storepw</keystorepass>', '<keystorepass>storepass</keystorepass>')
        .replace('<keypass>keypw</keypass>', '<keypass>keypass1</keypass>')
        .replace('<trustkeystorepass>trustpw</trustkeystorepass>', '<trustkeystorepass>trustpass</trustkeystorepass>'),
    );
    config = await loadServerConfig(file);
    network = new R66Network(config, () => lookups, silent);
    await network.start();
    const [plain, tls] = network.ports;
    for (const h of [
      hostEntry('svc1', plain!, { hostKey: key('server-pwd') }),
      hostEntry('svc1-ssl', tls!, { isSsl: true, hostKey: key('server-ssl-pwd') }),
      hostEntry('peer', 0, { hostKey: key('peer-pwd') }),
      hostEntry('peer-ssl', 0, { isSsl: true, hostKey: key('peer-ssl-pwd') }),
    ]) {
      hosts.set(h.hostId, h);
    }
    await writeFile(path.join(config.directories.out, 'listed.txt'), 'x');
    // The partner: same files, other identity (its client certificate is the same JKS key).
    ({ pool } = await openClientNetwork({ ...config, hostId: 'peer', sslHostId: 'peer-ssl' }, lookups, { logger: silent }));
  });
  afterAll(async () => {
    await pool?.close();
    await network?.stop();
    await inst?.cleanup();
  });

  it('listens on the plain and TLS ports and describes them', () => {
    expect(network.ports).toHaveLength(2);
    expect(network.describe()).toEqual([`R66 plain listening on port ${network.ports[0]}`, `R66 TLS listening on port ${network.ports[1]}`]);
  });

  it('answers a message on both ports, with the keys decrypted with the cryptokey', async () => {
    expect((await sendMessage(pool, 'svc1', 'plain')).answer).toBe('TestPacket: MSG:plain:101');
    expect((await sendMessage(pool, 'svc1-ssl', 'tls')).answer).toBe('TestPacket: MSG:tls:101');
  });

  it('answers information requests from the configured out directory', async () => {
    expect((await getFileInfo(pool, 'svc1', 'send', 'list', '*')).header).toBe('/out/listed.txt\n');
  });
});
