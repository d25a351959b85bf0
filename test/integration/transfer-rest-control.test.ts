// Transfer orders through REST against real svc-r66server processes (gap: the server hands its
// running engine to REST): a slow transfer (low global limit on the sender) is stopped while it
// runs, restarted, resumes from its rank and ends with the exact bytes. Also REST v1 /control.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { readInfoMap } from '../../src/tasks/index.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import type { Harness } from '../http/harness.js';
import { cls, v1 } from '../http/v1-client.js';
import { waitFor } from '../helpers/wait.js';
import { BLOCK, freePort, killNodes, logsOf, rest, rowOf, sha256File, startNode, writeNode, writePatternFile, type Node } from '../transfer/servers.js';

const SIZE = 16 * 1024 * 1024;
const RULE = { 'send.rule.xml': '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n' };

let box: Sandbox;
let a: Node;
let b: Node;

beforeEach(async () => {
  box = sandbox();
  const [pa, pb] = [await freePort(), await freePort()];
  // 4 MB/s on the sender: about 4 s for the whole file, so orders land while it runs.
  // v1admin: a client-only partner (negative port), the only kind REST v1 accepts as user.
  a = await writeNode(box, 'hosta', pa, [{ id: 'hostb', port: pb }, { id: 'v1admin', port: -1 }], {
    rest: true, rules: RULE, limit: '<globallimit>4194304</globallimit>', admins: ['hosta', 'v1admin'],
  });
  b = await writeNode(box, 'hostb', pb, [{ id: 'hosta', port: pa }], { rules: RULE });
  await startNode(b);
  await startNode(a);
}, 60_000);

afterEach(() => {
  killNodes(a, b);
  box.cleanup();
});

async function submit(file: string): Promise<bigint> {
  const r = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: file, requested: 'hostb' });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  const uri = r.headers.get('transfer-uri') ?? '';
  return BigInt(/\/v2\/transfers\/(-?\d+)_/.exec(uri)![1]!);
}

const done = async (id: bigint) => waitFor(async () => {
  const ra = await rowOf(a, id);
  const rb = await rowOf(b, id);
  return Number(ra?.updatedinfo) === UpdatedInfo.DONE && Number(rb?.updatedinfo) === UpdatedInfo.DONE ? { ra, rb } : undefined;
}, { what: 'both rows done', timeoutMs: 60_000 });

describe('REST transfer orders act on running transfers (real server processes)', () => {
  it('v2: stop of a running transfer, then restart: it resumes from its rank and the file is byte-identical', async () => {
    const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const id = await submit('big.bin');
    await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > 16, { what: 'the transfer under way', timeoutMs: 30_000 });
    const runningInfo = readInfoMap((await rowOf(a, id))!.transferinfo);

    const stop = await rest(a, 'PUT', `/v2/transfers/${id}_hostb/stop`);
    expect(stop.status).toBe(200);
    // The order returns once the running transfer ended: both sides say stopped, rank kept.
    const stoppedA = (await rowOf(a, id))!;
    expect(Number(stoppedA.updatedinfo)).toBe(UpdatedInfo.INERROR);
    expect(stoppedA.infostatus).toBe('H');
    // TRANSFERINFO keeps its map (not overwritten with "H").
    expect(stoppedA.transferinfo).not.toBe('H');
    expect(readInfoMap(stoppedA.transferinfo)).toEqual(runningInfo);
    const stoppedRank = Number(stoppedA.rank);
    expect(stoppedRank).toBeGreaterThan(0);
    expect(stoppedRank).toBeLessThan(SIZE / BLOCK);
    await waitFor(async () => (await rowOf(b, id))?.infostatus === 'H', { what: 'the partner stopped too' });
    expect(Number((await rowOf(b, id))!.updatedinfo)).toBe(UpdatedInfo.INERROR);

    const restart = await rest(a, 'PUT', `/v2/transfers/${id}_hostb/restart`);
    expect(restart.status).toBe(200);
    const end = await done(id);
    expect(end.ra!.infostatus).toBe('O');
    expect(await sha256File(received(b, 'big.bin'))).toBe(expected);
    const resumed = logsOf(a, 'transfer resumed').filter((l) => l.id === String(id));
    expect(resumed.length).toBe(1);
    expect(Number(resumed[0]!.rank)).toBeGreaterThan(0);
    expect(Number(resumed[0]!.rank)).toBeLessThanOrEqual(stoppedRank);
  }, 120_000);

  it('v1 /control: stop of a running transfer, then restart: it resumes from its rank and completes', async () => {
    const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const id = await submit('big.bin');
    await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > 16, { what: 'the transfer under way', timeoutMs: 30_000 });
    const h = { base: `http://127.0.0.1:${a.restPort}` } as Harness;
    const call = (body: object) => v1(h, 'PUT', '/control', { user: 'v1admin', key: null, body: JSON.stringify(body) });
    const ref = { requester: 'hosta', requested: 'hostb', specialid: String(id) };

    const stop = await call({ '@class': cls('StopOrCancelJsonPacket'), requestUserPacket: 9, ...ref });
    expect(stop.json(), stop.text).toMatchObject({ command: 'StopOrCancelTransfer', code: 200 });
    expect((await rowOf(a, id))!).toMatchObject({ infostatus: 'H' });
    const stoppedRank = Number((await rowOf(a, id))!.rank);
    expect(stoppedRank).toBeGreaterThan(0);
    await waitFor(async () => (await rowOf(b, id))?.infostatus === 'H', { what: 'the partner stopped too' });

    const restart = await call({ '@class': cls('RestartTransferJsonPacket'), ...ref });
    expect(restart.json(), restart.text).toMatchObject({ command: 'RestartTransfer', code: 200 });
    await done(id);
    expect(await sha256File(received(b, 'big.bin'))).toBe(expected);
    const resumed = logsOf(a, 'transfer resumed').filter((l) => l.id === String(id));
    expect(resumed.length).toBe(1);
    expect(Number(resumed[0]!.rank)).toBeGreaterThan(0);
  }, 120_000);

  it('v2: cancel of a running transfer resets the rank and removes the partial file', async () => {
    await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const id = await submit('big.bin');
    await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > 16, { what: 'the transfer under way', timeoutMs: 30_000 });
    const cancel = await rest(a, 'PUT', `/v2/transfers/${id}_hostb/cancel`);
    expect(cancel.status).toBe(200);
    const row = (await rowOf(a, id))!;
    expect(row.infostatus).toBe('K');
    expect(Number(row.rank)).toBe(0);
    await waitFor(async () => (await rowOf(b, id))?.infostatus === 'K', { what: 'the partner cancelled too' });
    expect(Number((await rowOf(b, id))!.rank)).toBe(0);
  }, 120_000);
});

/** The received file (the receiver may prefix its name with the transfer id). */
function received(node: Node, name: string): string {
  const dir = join(node.home, 'in');
  const found = readdirSync(dir).filter((f) => f === name || f.endsWith(`_${name}`));
  expect(found, `${name} in ${dir}`).toHaveLength(1);
  return join(dir, found[0]!);
}
