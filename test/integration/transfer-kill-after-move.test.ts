// The receiving server killed right after it moved the received file to its final place, before
// any later write of its RUNNER row (decision 0033): the requester's restart of the same transfer id
// must not make it receive the file a second time under a second name. The kill is made exact by
// the receiver's crash point (SVC_TEST_CRASH_AT, src/transfer/crash-point.ts): it SIGKILLs itself
// there, in a real server process. `afterMove`: the restart is answered QueryAlreadyFinished;
// `beforeEndTransferAnswer` (post-tasks ended, answer not sent): the restart resumes at the end
// rank, the sender sends no Data and EndTransfer at once, which the receiver answers.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, logsOf, rest, rowOf, rowsDone, SEND_RULE, sha256File, startNode, submitByRest, writeNodePair, writePatternFile, type Node } from '../transfer/servers.js';

const SIZE = 3 * 65536 + 123;
/** hosta (the requester) receives: a pull. */
const PULL_RULE = { 'pull.rule.xml': '<rule><idrule>pull</idrule><hostids/><mode>2</mode></rule>\n' };

describe('receiver killed after the move to the final place', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: { ...SEND_RULE, ...PULL_RULE }, rest: true }, { rules: { ...SEND_RULE, ...PULL_RULE } }));
  }, 60_000);

  afterEach(() => {
    killNodes(a, b);
    box.cleanup();
  });

  for (const point of ['afterMove', 'beforeEndTransferAnswer'] as const) {
  it(`killed at ${point}: the restart of the same id receives nothing again: one file, byte-identical, both rows done`, async () => {
    const expected = await writePatternFile(join(a.home, 'out', 'placed.bin'), SIZE);
    const normalEnv = b.env;
    b.env = { ...normalEnv, SVC_TEST_CRASH_AT: point };
    const first = await startNode(b);
    await startNode(a);
    const id = await submitByRest(a, 'placed.bin', 'hostb');
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    // Killed after the rename: the file is in place, the row is not finished.
    const inDir = join(b.home, 'in');
    expect(readdirSync(inDir)).toHaveLength(1);
    expect(Number((await rowOf(b, id))!.updatedinfo)).not.toBe(UpdatedInfo.DONE);

    b.env = normalEnv;
    await startNode(b);
    // hosta's scheduler retries the same id (delayretry 1 s).
    const { ra } = await rowsDone(a, b, id);
    expect(ra.infostatus).toBe('O');
    const files = readdirSync(inDir);
    expect(files).toHaveLength(1);
    expect(await sha256File(join(inDir, files[0]!))).toBe(expected);
    expect(readdirSync(join(b.home, 'work'))).toEqual([]);
    const msg = point === 'afterMove' ? 'restart of a transfer whose file was already placed: answered already finished' : 'transfer resumed';
    await waitFor(() => logsOf(b, msg).length === 1, { what: `"${msg}" in hostb's log` });
  }, 90_000);
  }

  it('the requester receives (pull) and is killed after its move: its restart finishes without receiving again', async () => {
    const expected = await writePatternFile(join(b.home, 'out', 'pulled.bin'), SIZE);
    await startNode(b);
    const normalEnv = a.env;
    a.env = { ...normalEnv, SVC_TEST_CRASH_AT: 'afterMove' };
    const first = await startNode(a);
    const r = await rest(a, 'POST', '/v2/transfers', { ruleName: 'pull', filename: 'pulled.bin', requested: 'hostb' });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const id = BigInt(/\/v2\/transfers\/(-?\d+)_/.exec(r.headers.get('transfer-uri') ?? '')![1]!);
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    const inDir = join(a.home, 'in');
    expect(readdirSync(inDir)).toHaveLength(1);

    a.env = normalEnv;
    await startNode(a);
    await rowsDone(a, b, id);
    const files = readdirSync(inDir);
    expect(files).toHaveLength(1);
    expect(await sha256File(join(inDir, files[0]!))).toBe(expected);
    expect(readdirSync(join(a.home, 'work'))).toEqual([]);
  }, 90_000);
});
