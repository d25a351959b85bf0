// Server restart with transfers in flight (REST v2 PUT /v2/server/restart, rest-v2.md §10.11)
// between real svc-r66server processes: the restarted side ends its running transfer cleanly with
// the "Shutdown forced" notice (r66-protocol.md §9.12), the partner ends it with S (resumable),
// and once the server is back the transfer resumes from its rank and ends with the exact bytes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, logsOf, receivedFile, rest, rowOf, rowsDone, SEND_RULE, sha256File, startNodePair, submitByRest, writePatternFile, type Node } from '../transfer/servers.js';

const SIZE = 24 * 1024 * 1024;

let box: Sandbox;
let a: Node;
let b: Node;

beforeEach(async () => {
  box = sandbox();
  // 4 MB/s on the sender: about 6 s for the whole file, so the restart lands while it runs.
  ({ a, b } = await startNodePair(box, { rest: true, rules: SEND_RULE, limit: '<globallimit>4194304</globallimit>' }, { rest: true, rules: SEND_RULE }));
}, 60_000);

afterEach(() => {
  killNodes(a, b);
  box.cleanup();
});

describe('PUT /v2/server/restart with a transfer in flight (real server processes)', () => {
  for (const restarted of ['requester (sender)', 'requested (receiver)'] as const) {
    it(`the ${restarted} restarts: the transfer stops cleanly, resumes from its rank and completes byte-identical`, async () => {
      const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
      const id = await submitByRest(a, 'big.bin', 'hostb');
      await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > 32, { what: 'the transfer under way', timeoutMs: 30_000 });

      const node = restarted.startsWith('requester') ? a : b;
      const partner = node === a ? b : a;
      const answer = await rest(node, 'PUT', '/v2/server/restart');
      expect(answer.status).toBe(204);
      await waitFor(() => logsOf(node, 'server restarted').length === 1, { what: 'the restart', timeoutMs: 30_000 });

      const done = await rowsDone(a, b, id);
      expect(done.ra.infostatus).toBe('O');
      expect(await sha256File(receivedFile(b, 'big.bin'))).toBe(expected);
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
