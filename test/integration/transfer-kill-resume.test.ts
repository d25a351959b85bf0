// Crash and resume with real server processes: two `svc-r66server start` instances with their own
// homes and SQLite databases; a 200 MB transfer submitted to the database (as `asend` does), one
// side killed with SIGKILL mid-transfer, restarted, and the transfer must finish from its saved
// rank with the exact bytes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { BLOCK, killNodes, rowOf, rowsDone, sha256File, startNode, writeNodePair, writePatternFile, type Node } from '../transfer/servers.js';

const SIZE = 200 * 1024 * 1024;

/** The transfer's rule on both hosts: the requester sends with block digests, the receiver keeps the file's name. */
const BIG_RULE = {
  'big.rule.xml': `<rule><idrule>big</idrule><hostids/><mode>${TransferMode.SENDMD5MODE}</mode>
  <rposttasks><tasks><task><type>MOVERENAME</type><path>#INPATH#/#ORIGINALFILENAME#</path><delay>0</delay></task></tasks></rposttasks></rule>\n`,
};

async function kill9(node: Node): Promise<string> {
  const proc = node.proc!;
  proc.child.kill('SIGKILL');
  await proc.exited;
  return proc.stdout();
}

/** Inserts the transfer as `asend` would (database.md §9.1): TOSUBMIT, picked up by hosta's scheduler. */
async function submit(node: Node, partner: string, file: string): Promise<bigint> {
  const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${node.db}`), { hostId: node.id });
  try {
    const specialId = await store.nextTransferId();
    const now = new Date();
    await store.runner.insert({
      specialId, requester: node.id, requested: partner, ownerReq: node.id, globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, step: -1, rank: 0,
      blockSize: BLOCK, mode: TransferMode.SENDMD5MODE, updatedInfo: UpdatedInfo.TOSUBMIT, stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown,
      retrieveMode: true, isMoved: false, start: now, stop: now, idRule: 'big', filename: file, originalName: file, fileInfo: 'noinfo',
      transferInfo: `{"ORIGINALSIZE":${SIZE}}`,
    });
    return specialId;
  } finally {
    await store.close();
  }
}

describe('kill -9 mid-transfer and resume (separate processes)', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;

  beforeEach(async () => {
    box = sandbox();
    // The sender is shaped so the kill happens mid-transfer on any machine.
    ({ a, b } = await writeNodePair(box, { rules: BIG_RULE, limit: '<globallimit>100000000</globallimit>' }, { rules: BIG_RULE }));
  }, 60_000);

  afterEach(() => {
    killNodes(a, b);
    box.cleanup();
  });

  for (const victim of ['receiver', 'requester'] as const) {
    it(`the ${victim} is killed; after its restart the transfer resumes from its rank and completes`, async () => {
      const expected = await writePatternFile(join(a.home, 'out', 'big.bin'), SIZE);
      await startNode(b);
      await startNode(a);
      const id = await submit(a, 'hostb', 'big.bin');
      const minRank = SIZE / BLOCK / 4;
      await waitFor(async () => Number((await rowOf(b, id))?.rank ?? 0) > minRank, { what: 'a quarter of the file on the receiver', timeoutMs: 30_000 });
      const node = victim === 'receiver' ? b : a;
      // The victim's own row must hold a rank before the kill: a requester killed before its first
      // rank save (every second or 64 MiB) has nothing to resume from and rightly starts again from
      // zero (the full CI run was slow enough for that once, 2026-12-03).
      await waitFor(async () => Number((await rowOf(node, id))?.rank ?? 0) > 0, { what: `a rank saved by the ${victim}`, timeoutMs: 30_000 });
      await kill9(node);
      const rankAtKill = Number((await rowOf(b, id))!.rank);
      expect(rankAtKill).toBeGreaterThan(0);
      await startNode(node);
      const done = await rowsDone(a, b, id);
      expect(done.ra.infostatus).toBe('O');
      expect(await sha256File(join(b.home, 'in', 'big.bin'))).toBe(expected);
      expect(readdirSync(join(b.home, 'work'))).toEqual([]);
      // Resumed, not restarted: one of the two logs says from which rank.
      const logs = a.proc!.stdout() + b.proc!.stdout();
      const resumed = logs.split('\n').filter((l) => l.includes('"msg":"transfer resumed"')).map((l) => JSON.parse(l) as { rank: number });
      expect(resumed.length).toBeGreaterThan(0);
      expect(resumed[0]!.rank).toBeGreaterThan(0);
    }, 120_000);
  }
});
