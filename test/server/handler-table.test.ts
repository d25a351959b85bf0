/**
 * The server's R66 handler table as composeR66Handlers builds it (issue 20 item 5): one row per
 * kind and sub-kind, each module answering its own sub-kinds, nothing wrapping anything else. The
 * network adds the built-in test and information rows at its start.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { R66Network } from '../../src/net/network.js';
import { PacketType } from '../../src/protocol/index.js';
import { extraComponents } from '../../src/server/components.js';
import { silentLogger } from '../../src/server/logger.js';
import { ServerRuntime } from '../../src/server/runtime.js';
import { sandbox, writeInstance, type Sandbox } from '../cli/cli-helpers.js';

let box: Sandbox;
beforeAll(() => {
  box = sandbox();
});
afterAll(() => box.cleanup());

it('lists who answers which request kind and sub-kind', async () => {
  const inst = writeInstance(join(box.dir, 'conf', 'hosta'));
  const runtime = new ServerRuntime(await loadServerConfig(join(inst.confDir, 'server.xml')), silentLogger());
  const network = extraComponents(runtime).find((c): c is R66Network => c instanceof R66Network);
  const orders = [PacketType.STOP, PacketType.CANCEL, PacketType.VALID].sort((a, b) => a - b);
  const exports = [PacketType.LOG, PacketType.LOGPURGE, PacketType.CONFEXPORT].sort((a, b) => a - b);
  expect(network?.handlers.table()).toEqual(expect.arrayContaining([
    { kind: 'request', subKinds: 'rest', name: 'transfer engine' },
    { kind: 'valid', subKinds: orders, name: 'transfer orders' },
    { kind: 'valid', subKinds: exports, name: 'admin exports' },
    { kind: 'jsonCommand', subKinds: orders, name: 'transfer orders' },
    { kind: 'jsonCommand', subKinds: [PacketType.BUSINESSREQUEST], name: 'business requests' },
    { kind: 'jsonCommand', subKinds: exports, name: 'admin exports' },
    { kind: 'jsonCommand', subKinds: 'rest', name: 'jsonCommand' },
    { kind: 'businessRequest', subKinds: 'rest', name: 'business requests' },
    { kind: 'shutdown', subKinds: 'rest', name: 'shutdown order' },
    // Issue 38: the original's bandwidth, configuration import and block orders; Valid's bottom row.
    { kind: 'valid', subKinds: [PacketType.CONFIMPORT, PacketType.BANDWIDTH], name: 'admin orders' },
    { kind: 'jsonCommand', subKinds: [PacketType.CONFIMPORT, PacketType.BANDWIDTH, PacketType.BLOCKREQUEST], name: 'admin orders' },
    { kind: 'blockRequest', subKinds: 'rest', name: 'block order' },
    { kind: 'valid', subKinds: 'rest', name: 'valid' },
  ]));
});
