// Transfer orders through REST against real svc-r66server processes (gap: the server hands its
// running engine to REST): a slow transfer (low global limit on the sender) is stopped while it
// runs, restarted, resumes from its rank and ends with the exact bytes. Also REST v1 /control.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { readInfoMap } from '../../src/tasks/index.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import type { Harness } from '../http/harness.js';
import { cls, v1 } from '../http/v1-client.js';
import { waitFor } from '../helpers/wait.js';
import { BLOCK, killNodes, logsOf, receivedFile, rest, rowOf, rowsDone, SEND_RULE, sha256File, startNodePair, submitByRest, writePatternFile, type Node } from '../transfer/servers.js';

const SIZE = 16 * 1024 * 1024;

let box: Sandbox;
let a: Node;
let b: Node;

beforeEach(async () => {
  box = sandbox();
  // 4 MB/s on the sender: about 4 s for the whole file, so orders land while it runs.
  // v1admin: a client-only partner (negative port), the only kind REST v1 accepts as user.
  ({ a, b } = await startNodePair(box, {
    partners: [{ id: 'v1admin', port: -1 }], rest: true, rules: SEND_RULE, limit: '<globallimit>4194304</globallimit>', admins: ['hosta', 'v1admin'],
  }, { rules: SEND_RULE }));
}, 60_000);

afterEach(() => {
  killNodes(a, b);
  box.cleanup();
});

describe('REST transfer orders act on running transfers (real server processes)', () => {
  it('v2: stop of a running transfer, then restart: it resumes from its rank and the file is byte-identical', async () => {
    const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const id = await submitByRest(a, 'big.bin', 'hostb');
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
    // The partner writes the stop's code first, then (after its error tasks) the final state.
    await waitFor(async () => {
      const r = await rowOf(b, id);
      return r?.infostatus === 'H' && Number(r.updatedinfo) !== UpdatedInfo.RUNNING;
    }, { what: 'the partner stopped too' });
    expect(Number((await rowOf(b, id))!.updatedinfo)).toBe(UpdatedInfo.INERROR);

    const restart = await rest(a, 'PUT', `/v2/transfers/${id}_hostb/restart`);
    expect(restart.status).toBe(200);
    const end = await rowsDone(a, b, id);
    expect(end.ra.infostatus).toBe('O');
    expect(await sha256File(receivedFile(b, 'big.bin'))).toBe(expected);
    const resumed = logsOf(a, 'transfer resumed').filter((l) => l.id === String(id));
    expect(resumed.length).toBe(1);
    expect(Number(resumed[0]!.rank)).toBeGreaterThan(0);
    expect(Number(resumed[0]!.rank)).toBeLessThanOrEqual(stoppedRank);
  }, 120_000);

  it('v1 /control: stop of a running transfer, then restart: it resumes from its rank and completes', async () => {
    const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const id = await submitByRest(a, 'big.bin', 'hostb');
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
    await rowsDone(a, b, id);
    expect(await sha256File(receivedFile(b, 'big.bin'))).toBe(expected);
    const resumed = logsOf(a, 'transfer resumed').filter((l) => l.id === String(id));
    expect(resumed.length).toBe(1);
    expect(Number(resumed[0]!.rank)).toBeGreaterThan(0);
  }, 120_000);

  it('v2: cancel of a running transfer resets the rank and removes the partial file', async () => {
    await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
    const id = await submitByRest(a, 'big.bin', 'hostb');
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
