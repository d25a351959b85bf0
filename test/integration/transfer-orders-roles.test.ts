// Roles on transfer orders from partners (r66-protocol.md §9.9, config.md §3.10) against a real
// svc-r66server: stop and cancel need SYSTEM, restart needs TRANSFER, refused with
// Error("Not correctly authenticated", 'A'). Callers are R66 clients in the test process.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { encodeValidCommand, newJsonCommand, PacketType } from '../../src/protocol/index.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, openCaller, order, rowOf, SEND_RULE, startNodePair, submitByRest, writePatternFile, type Caller, type Node } from '../transfer/servers.js';


let box: Sandbox;
let a: Node;
let b: Node;
const callers: Caller[] = [];

beforeEach(async () => {
  box = sandbox();
  ({ a, b } = await startNodePair(box, {
    partners: [{ id: 'hostc', port: 1 }, { id: 'hostd', port: 1 }], rest: true, rules: SEND_RULE, limit: '<globallimit>1048576</globallimit>',
    roles: '<role><roleid>hostc</roleid><roleset>READONLY|TRANSFER</roleset></role><role><roleid>hostd</roleid><roleset>SYSTEM</roleset></role>',
  }, { rules: SEND_RULE }));
}, 60_000);

afterEach(async () => {
  for (const c of callers.splice(0)) await c.close();
  killNodes(a, b);
  box.cleanup();
});

describe('roles on transfer orders from partners (real server)', () => {
  it('TRANSFER may restart but not stop; SYSTEM may stop; the stopped transfer restarts and completes', async () => {
    // The callers first (each runs the client's initdb), so the orders reach a running transfer.
    const c = await openCaller(box, 'hostc', [a]);
    const d = await openCaller(box, 'hostd', [a]);
    callers.push(c, d);
    await writePatternFile(join(a.home, 'out', 'big.bin'), 8 * 1024 * 1024);
    const specialId = await submitByRest(a, 'big.bin', 'hostb');
    const ref = { specialId, requester: 'hosta', requested: 'hostb' };
    await waitFor(async () => Number((await rowOf(b, specialId))?.rank ?? 0) > 4, { what: 'the transfer under way', timeoutMs: 30_000 });

    // TRANSFER only: stop and cancel refused (legacy and JSON forms); nothing changed.
    expect(await order(c, 'hosta', encodeValidCommand({ cmd: 'stop', ...ref }))).toMatchObject({ kind: 'error', message: expect.stringMatching(/^Not correctly authenticated: partner \S+ lacks the role SYSTEM/), code: { char: 'A' } });
    const cancel = newJsonCommand('StopOrCancelJsonPacket', { requester: 'hosta', requested: 'hostb', specialid: specialId, requestUserPacket: PacketType.CANCEL });
    expect(await order(c, 'hosta', { kind: 'jsonCommand', command: cancel, result: '', subType: PacketType.CANCEL })).toMatchObject({ kind: 'error', code: { char: 'A' } });
    // Restart is allowed with TRANSFER: the transfer still runs, answered s.
    expect(await order(c, 'hosta', encodeValidCommand({ cmd: 'restart', ...ref, restartTime: null }))).toMatchObject({ kind: 'valid', middle: 's', subType: PacketType.REQUESTUSER });
    expect(Number((await rowOf(a, specialId))!.updatedinfo)).toBe(UpdatedInfo.RUNNING);

    // SYSTEM: the stop is done on the running transfer.
    expect(await order(d, 'hosta', encodeValidCommand({ cmd: 'stop', ...ref }))).toMatchObject({ kind: 'valid', middle: 'O', subType: PacketType.REQUESTUSER });
    expect((await rowOf(a, specialId))!).toMatchObject({ infostatus: 'H' });
    // SYSTEM alone has no TRANSFER: its restart is refused; hostc's is accepted (B).
    expect(await order(d, 'hosta', encodeValidCommand({ cmd: 'restart', ...ref, restartTime: null }))).toMatchObject({ kind: 'error', code: { char: 'A' } });
    expect(await order(c, 'hosta', encodeValidCommand({ cmd: 'restart', ...ref, restartTime: null }))).toMatchObject({ kind: 'valid', middle: 'B' });
    await waitFor(async () => Number((await rowOf(a, specialId))?.updatedinfo) === UpdatedInfo.DONE, { what: 'the restarted transfer done', timeoutMs: 60_000 });
  }, 120_000);
});
