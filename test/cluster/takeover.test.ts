// Issue 27 take-over: a member claims transfers and dies (its connection to the database gone, no
// heartbeat, no hand-back); a surviving member, within its configured bound, hands the dead
// member's RUNNING rows back (rank kept) and runs them: every file arrives once, byte-identical.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterMember, memberOf } from '../../src/cluster/member.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { closeHosts, makeHost, patternBytes, receivedContent, rule, silent, type TestHost } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { hostEntry, makeMember, passwordOf, sharedHome, type Member } from './members.js';

const N = 20;
const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('cluster take-over on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let partner: TestHost | undefined;
  let home: Awaited<ReturnType<typeof sharedHome>> | undefined;
  let survivor: Member | undefined;

  beforeAll(async () => {
    db = await dbc.create();
    if (db === undefined) return;
    const init = await openStore(db.settings, { hostId: 'hosta' });
    await init.initSchema({ hostId: 'hosta' });
    await init.rules.upsert(rule('send', TransferMode.SENDMODE));
    await init.close();
    partner = await makeHost('hostb');
    await partner.addRule(rule('send', TransferMode.SENDMODE));
    home = await sharedHome();
  });
  afterAll(async () => {
    await survivor?.close();
    await closeHosts(partner);
    await home?.remove();
    await db?.drop();
  });

  it('a dead member\'s transfers are resumed by another within the bound', async (ctx) => {
    if (dbc.skip(ctx) || db === undefined || partner === undefined || home === undefined) return;
    // Submit with a member whose scheduler is stopped at once (it only writes rows).
    const submitter = await makeMember('hosta', db.settings, home.dirs, [partner]);
    await submitter.scheduler.stop();
    await submitter.cluster.stop();
    const ids: bigint[] = [];
    for (let i = 0; i < N; i++) {
      await writeFile(path.join(home.dirs.out, `t${i}.bin`), patternBytes(20_000 + i, i + 1));
      ids.push(await submitter.engine.submitLater({ partner: 'hostb', rule: 'send', file: `t${i}.bin` }));
    }
    // The doomed member claims every row, then "dies": its database connection closes under it.
    const doomedStore = await openStore(db.settings, { hostId: 'hosta' });
    const doomed = new ClusterMember({ hostId: 'hosta', ownIds: ['hosta'], store: () => doomedStore, logger: silent, heartbeatMs: 200, takeoverAfterMs: 1500 });
    await doomed.start();
    const claimed = await doomed.claimDue(new Date(), N);
    expect(claimed).toHaveLength(N);
    await doomedStore.close();
    const diedAt = Date.now();
    const rows = await submitter.store.runner.list({ ownerReq: 'hosta' });
    expect(rows.every((r) => r.updatedInfo === UpdatedInfo.RUNNING && memberOf(r.transferInfo) === doomed.member)).toBe(true);

    survivor = await makeMember('hosta', db.settings, home.dirs, [partner], { heartbeatMs: 200, takeoverAfterMs: 1500 });
    partner.directory.set({ host: hostEntry('hosta', survivor.listener.port), password: passwordOf('hosta') });
    const done = await waitFor(async () => {
      const all = await submitter.store.runner.list({ ownerReq: 'hosta' });
      return all.every((r) => r.updatedInfo === UpdatedInfo.DONE) ? all : undefined;
    }, { timeoutMs: 30_000, what: 'the dead member\'s rows done by the survivor' });
    const tookMs = Date.now() - diedAt;
    await submitter.close();
    await doomed.stop();
    // Bound: heartbeat expiry + take-over lease expiry + a heartbeat period, and some slack.
    expect(tookMs).toBeLessThan(1500 + 1500 + 200 + 5000);
    expect(done.every((r) => memberOf(r.transferInfo) === survivor?.cluster.member)).toBe(true);
    for (let i = 0; i < N; i++) {
      expect((await receivedContent(partner.dirs.in, `t${i}.bin`)).equals(await readFile(path.join(home.dirs.out, `t${i}.bin`)))).toBe(true);
    }
  }, 60_000);
});
