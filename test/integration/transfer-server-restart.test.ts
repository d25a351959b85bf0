// Server restart with transfers in flight (REST v2 PUT /v2/server/restart, rest-v2.md §10.11)
// between real svc-r66server processes: the restarted side ends its running transfer cleanly with
// the "Shutdown forced" notice (r66-protocol.md §9.12), the partner ends it with S (resumable),
// and once the server is back the transfer resumes from its rank and ends with the exact bytes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, killNodes, logsOf, rest, rowOf, sha256File, startNode, writeNode, writePatternFile, type Node } from '../transfer/servers.js';

const SIZE = 24 * 1024 * 1024;
const RULE = { 'send.rule.xml': '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n' };

let box: Sandbox;
let a: Node;
let b: Node;

beforeEach(async () => {
  box = sandbox();
  const [pa, pb] = [await freePort(), await freePort()];
  // 4 MB/s on the sender: about 6 s for the whole file, so the restart lands while it runs.
  a = await writeNode(box, 'hosta', pa, [{ id: 'hostb', port: pb }], { rest: true, rules: RULE, limit: '<globallimit>4194304</globallimit>' });
  b = await writeNode(box, 'hostb', pb, [{ id: 'hosta', port: pa }], { rest: true, rules: RULE });
  await startNode(b);
  await startNode(a);
}, 60_000);

afterEach(() => {
  killNodes(a, b);
  box.cleanup();
});

function received(node: Node, name: string): string {
  const dir = join(node.home, 'in');
  const found = readdirSync(dir).filter((f) => f === name || f.endsWith(`_${name}`));
  expect(found, `${name} in ${dir}`).toHaveLength(1);
  return join(dir, found[0]!);
}

describe('PUT /v2/server/restart with a transfer in flight (real server processes)', () => {
  for (const restarted of ['requester (sender)', 'requested (receiver)'] as const) {
    it(`the ${restarted} restarts: the transfer stops cleanly, resumes from its rank and completes byte-identical`, async () => {
      const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
      const add = await rest(a, 'POST', '/v2/transfers', { ruleName: 'send', filename: 'big.bin', requested: 'hostb' });
      expect(add.status).toBe(201);
      const id = BigInt(/\/v2\/transfers\/(-?\d+)_/.exec(add.headers.get('transfer-uri') ?? '')![1]!);
      await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > 32, { what: 'the transfer under way', timeoutMs: 30_000 });

      const node = restarted.startsWith('requester') ? a : b;
      const partner = node === a ? b : a;
      const answer = await rest(node, 'PUT', '/v2/server/restart');
      expect(answer.status).toBe(204);
      await waitFor(() => logsOf(node, 'server restarted').length === 1, { what: 'the restart', timeoutMs: 30_000 });

      const done = await waitFor(async () => {
        const ra = await rowOf(a, id);
        const rb = await rowOf(b, id);
        return Number(ra?.updatedinfo) === UpdatedInfo.DONE && Number(rb?.updatedinfo) === UpdatedInfo.DONE ? { ra, rb } : undefined;
      }, { what: 'both rows done', timeoutMs: 60_000 });
      expect(done.ra!.infostatus).toBe('O');
      expect(await sha256File(received(b, 'big.bin'))).toBe(expected);
      expect(readdirSync(join(b.home, 'work'))).toEqual([]);

      // The partner was told with the shutdown notice (not an unexpected packet) and ended with S.
      const ended = logsOf(partner, 'transfer in error').filter((l) => l.id === String(id));
      expect(ended.map((l) => [l.code, l.err])).toEqual([['S', `Shutdown forced by ${node.id}`]]);
      // Resumed, not started again: the requester's new attempt says from which rank.
      const resumed = logsOf(a, 'transfer resumed').filter((l) => l.id === String(id));
      expect(resumed.length).toBe(1);
      expect(Number(resumed[0]!.rank)).toBeGreaterThan(0);
    }, 120_000);
  }
});
