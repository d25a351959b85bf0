/**
 * The warning notifications of the original's administrative requests over R66 (monitoring.md §B.5,
 * issue 38): "Block Order received" / "Unblock Order received", "Change Bandwidth Limit Order
 * received: Global w:r (W:R) Local w:r (W:R)" and "Import Configuration Order received" (on receipt,
 * whatever the import then gives), each with the caller's host id; a refused order sends none. A
 * server started in this process with snmpconfig.xml naming Debian's snmptrapd, the orders as the
 * Java tools send them from the server's own host id (ServerShutdown reads the server's server.xml).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { Digest } from '../../src/model/digest.js';
import { authentPacket, buildVersionString, deriveWireKey, encodeFrame, NOCHANNEL, PacketType, type Packet } from '../../src/protocol/index.js';
import { runDatabaseTool } from '../../src/server/database-tool.js';
import { freePort } from '../../src/server/ports.js';
import { ServerRuntime } from '../../src/server/runtime.js';
import { PASSWORD_HEX, sandbox, writeInstance, type Sandbox } from '../cli/cli-helpers.js';
import { silent } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { RawPeer } from '../net/raw-peer.js';
import { freeUdpPort, startTrapd } from '../monitor/snmp-helpers.js';

let box: Sandbox;
let dir: string;
let trapd: Awaited<ReturnType<typeof startTrapd>>;
let runtime: ServerRuntime;
let r66: number;
let localIds = 100;

beforeAll(async () => {
  box = sandbox();
  const inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  dir = await mkdtemp(join(tmpdir(), 'svc-admin-snmp-'));
  trapd = await startTrapd(dir);
  r66 = await freePort();
  const file = join(inst.confDir, 'server.xml');
  const snmpFile = join(inst.confDir, 'snmpconfig.xml');
  writeFileSync(snmpFile, `<snmpconfig><config><localaddress>udp:127.0.0.1/${await freeUdpPort()}</localaddress><usetrap>True</usetrap><trapinformlevel>3</trapinformlevel></config>
    <targets><target><name>nms</name><domain>UdpIpv4</domain><address>127.0.0.1/${trapd.port}</address><isv2>True</isv2></target></targets></snmpconfig>`);
  writeFileSync(file, readFileSync(file, 'utf8').replace('<serverport>0</serverport>', `<serverport>${r66}</serverport>`)
    .replace('</server>', `<snmpconfig>${snmpFile}</snmpconfig></server>`));
  // hosta itself, and hostd: a partner with no role.
  writeFileSync(join(inst.confDir, 'authent.xml'), `<authent><entry><hostid>hosta</hostid><address>127.0.0.1</address><port>${r66}</port><key>${PASSWORD_HEX}</key></entry>`
    + `<entry><hostid>hostd</hostid><address>127.0.0.1</address><port>1</port><key>${PASSWORD_HEX}</key></entry></authent>\n`);
  await runDatabaseTool({ configFile: file, side: 'server', initdb: true, authFile: join(inst.confDir, 'authent.xml'), log: silent });
  runtime = new ServerRuntime(await loadServerConfig(file), silent);
  await runtime.start();
  await waitFor(() => trapd.out().includes('Startup Service'), { timeoutMs: 5000, what: 'the coldStart trap' });
}, 60_000);

afterAll(async () => {
  await runtime?.stop();
  await trapd?.stop();
  await rm(dir, { recursive: true, force: true });
  box?.cleanup();
});

/** One order as the Java tool sends it: Authent as `id` (password "password"), the order on that channel; its answer. */
async function javaOrder(id: string, order: Packet): Promise<Packet | undefined> {
  const peer = await RawPeer.open(r66);
  try {
    const local = ++localIds;
    const version = buildVersionString({ hostId: id, finalHash: true, digest: Digest.SHA512, proxified: false, compression: false });
    peer.write(encodeFrame(NOCHANNEL, local, authentPacket(id, 'password', version, 0, local)));
    const authent = await peer.next();
    expect(authent?.packet).toMatchObject({ kind: 'authent', way: 1 });
    peer.write(encodeFrame(authent!.frame.srcId, local, order));
    return (await peer.next())?.packet;
  } finally {
    peer.destroy();
  }
}

const received = (text: string, who: string) => async (): Promise<void> => {
  await waitFor(() => trapd.out().includes(`"${text}"`), { timeoutMs: 5000, what: text });
  const at = trapd.out().lastIndexOf(`"${text}"`);
  expect(trapd.out().slice(at, at + 2000)).toContain(`"${who}"`);
};

it('block, unblock, bandwidth and import orders over R66 each send their warning with the caller', async () => {
  const key = deriveWireKey('password');
  expect(await javaOrder('hosta', { kind: 'blockRequest', block: true, key })).toMatchObject({ kind: 'valid', header: 'Block new request' });
  await received('Block Order received', 'hosta')();
  expect(await javaOrder('hosta', { kind: 'blockRequest', block: false, key })).toMatchObject({ kind: 'valid', header: 'Unblock new request' });
  await received('Unblock Order received', 'hosta')();
  expect(await javaOrder('hosta', { kind: 'valid', header: '20000 10000', middle: '2000 1000', subType: PacketType.BANDWIDTH })).toMatchObject({ header: 'Bandwidth changed', middle: 'O' });
  await received('Change Bandwidth Limit Order received: Global 20000:10000 (W:R) Local 2000:1000 (W:R)', 'hosta')();
  // A file that is not there: nothing imported (KO, T), the order was received all the same.
  expect(await javaOrder('hosta', { kind: 'valid', header: '0 ', middle: `0 ${join(box.dir, 'no-such.rules.xml')}`, subType: PacketType.CONFIMPORT }))
    .toMatchObject({ header: ' Rule:KO', middle: 'T' });
  await received('Import Configuration Order received', 'hosta')();
});

it('a refused order sends no warning', async () => {
  const before = trapd.out().split('"Import Configuration Order received"').length;
  expect(await javaOrder('hostd', { kind: 'valid', header: '0 ', middle: `0 ${join(box.dir, 'x.rules.xml')}`, subType: PacketType.CONFIMPORT })).toMatchObject({ kind: 'error', code: { char: 'A' } });
  expect(await javaOrder('hostd', { kind: 'blockRequest', block: true, key: deriveWireKey('password') })).toMatchObject({ kind: 'error', code: { char: 'R' } });
  // A later warning from hosta arrives after anything the refused orders would have sent.
  expect(await javaOrder('hosta', { kind: 'valid', header: '30000 30000', middle: '-1 -1', subType: PacketType.BANDWIDTH })).toMatchObject({ middle: 'O' });
  await received('Change Bandwidth Limit Order received: Global 30000:30000 (W:R) Local 2000:1000 (W:R)', 'hosta')();
  expect(trapd.out().split('"Import Configuration Order received"').length).toBe(before);
  expect(trapd.out()).not.toContain('"hostd"');
});
