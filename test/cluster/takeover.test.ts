// Issue 27 take-over: a member claims transfers and dies (its connection to the database gone, no
// heartbeat, no hand-back); a surviving member, within its configured bound, hands the dead
// member's RUNNING rows back (rank kept) and runs them: every file arrives once, byte-identical.
// PostgreSQL and MariaDB.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterMember, memberOf } from '../../src/cluster/member.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore } from '../../src/store/index.js';
import { testDialects } from '../helpers/databases.js';
import { patternBytes, receivedContent, silent } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { clusterSetup, knowsHostaAt, submitFiles, type ClusterSetup } from './members.js';

const N = 20;
const dialects = testDialects().filter((d) => d.name !== 'sqlite');

describe.each(dialects)('cluster take-over on $name', (dbc) => {
  let setup: ClusterSetup | undefined;

  beforeAll(async () => {
    setup = await clusterSetup(dbc);
  });
  afterAll(async () => {
    await setup?.teardown();
  });

  it('a dead member\'s transfers are resumed by another within the bound', async (ctx) => {
    if (dbc.skip(ctx) || setup === undefined) return;
    const { db, home } = setup;
    const partner = setup.partners[0]!;
    await submitFiles(setup, Array.from({ length: N }, (_, i) => ({ name: `t${i}.bin`, bytes: patternBytes(20_000 + i, i + 1) })));
    // The doomed member claims every row, then "dies": its database connection closes under it.
    const doomedStore = await openStore(db.settings, { hostId: 'hosta' });
    const doomed = new ClusterMember({ hostId: 'hosta', ownIds: ['hosta'], store: () => doomedStore, logger: silent, heartbeatMs: 200, takeoverAfterMs: 1500 });
    await doomed.start();
    const claimed = await doomed.claimDue(new Date(), N);
    expect(claimed).toHaveLength(N);
    await doomedStore.close();
    const diedAt = Date.now();

    const survivor = await setup.member({ heartbeatMs: 200, takeoverAfterMs: 1500 });
    const rows = await survivor.store.runner.list({ ownerReq: 'hosta' });
    expect(rows.every((r) => memberOf(r.transferInfo) === doomed.member)).toBe(true);
    knowsHostaAt(partner, survivor.listener.port);
    const done = await waitFor(async () => {
      const all = await survivor.store.runner.list({ ownerReq: 'hosta' });
      return all.every((r) => r.updatedInfo === UpdatedInfo.DONE) ? all : undefined;
    }, { timeoutMs: 30_000, what: 'the dead member\'s rows done by the survivor' });
    const tookMs = Date.now() - diedAt;
    await doomed.stop();
    // Bound: heartbeat expiry (rounded up to the second) + take-over lease expiry + a heartbeat period, and some slack.
    expect(tookMs).toBeLessThan(1500 + 1000 + 1500 + 200 + 5000);
    expect(done.every((r) => memberOf(r.transferInfo) === survivor.cluster.member)).toBe(true);
    for (let i = 0; i < N; i++) {
      expect((await receivedContent(partner.dirs.in, `t${i}.bin`)).equals(await readFile(path.join(home.dirs.out, `t${i}.bin`)))).toBe(true);
    }
  }, 60_000);
});
