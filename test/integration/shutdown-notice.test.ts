// "Shutdown forced" (r66-protocol.md §9.12): a server that shuts down sends Valid("Shutdown forced",
// "", 8) to every open local channel, the shutdown order's own channel included, not only to the
// channels of running transfers (those are covered by transfer-server-restart.test.ts). A real
// svc-r66server process and a caller in the test process with two channels open on it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { unexpected } from '../../src/net/commands/unexpected.js';
import { PacketType, deriveWireKey, type Packet } from '../../src/protocol/index.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { freePort, killNodes, openCaller, startNode, writeNode, type Caller, type Node } from '../transfer/servers.js';

let box: Sandbox;
let a: Node;
let caller: Caller;

beforeEach(async () => {
  box = sandbox();
  // hostc holds the SYSTEM role on hosta (admin partner): it may order the shutdown.
  a = await writeNode(box, 'hosta', await freePort(), [{ id: 'hostc', port: 1 }], { admins: ['hosta', 'hostc'] });
  await startNode(a);
  caller = await openCaller(box, 'hostc', [a]);
}, 60_000);

afterEach(async () => {
  await caller.close();
  killNodes(a);
  box.cleanup();
});

const NOTICE = { kind: 'valid', header: 'Shutdown forced', middle: '', subType: PacketType.SHUTDOWN };

describe('the "Shutdown forced" notice at shutdown', () => {
  it('reaches every open channel: one waiting for its command and the shutdown order\'s own; then the server ends', async () => {
    // Authenticated, no command yet: hosta waits for one (up to timeoutcon, 10 s).
    const { channel: idle } = await caller.pool.openChannel('hosta');
    const { channel: ordering } = await caller.pool.openChannel('hosta');
    const received: Promise<Packet[]> = Promise.all([
      ordering.receive(20_000, 'the notice on the order channel'),
      idle.receive(20_000, 'the notice on the idle channel'),
    ]);
    // The administrator password of hosta's server.xml is "password" (PASSWORD_HEX).
    await ordering.send({ kind: 'shutdown', key: deriveWireKey('password'), restart: false });
    const [onOrder, onIdle] = await received;
    expect(onOrder).toEqual(NOTICE);
    expect(onIdle).toEqual(NOTICE);
    // What a conversation of this host makes of it when it waits for something else: the partner's
    // shutdown (S), not a protocol error.
    expect(unexpected(onIdle!, 'an answer')).toMatchObject({ code: ErrorCode.Shutdown });
    const end = await a.proc!.exited;
    expect(end.code).toBe(0);
  }, 60_000);
});
