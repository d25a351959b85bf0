// Issue 27 item 2 (configuration): a CONFIGURATION row set to UPDATEDINFO 3 is applied by every
// member once; the last member to see it resets it to 1 and the MULTIPLEMONITOR counter to 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterMember } from '../../src/cluster/member.js';
import type { Limits } from '../../src/model/limits.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { silent } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';

const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('configuration changes reach every member on $name', (dbc) => {
  let db: TestDatabase | undefined;
  const stores: Store[] = [];
  const members: ClusterMember[] = [];

  beforeAll(async () => {
    db = await dbc.create();
  });
  afterAll(async () => {
    for (const m of members) await m.stop();
    for (const s of stores) await s.close();
    await db?.drop();
  });

  it('both members apply the changed bandwidth; the row is then marked seen', async (ctx) => {
    if (dbc.skip(ctx) || db === undefined) return;
    const applied: Array<Array<Limits>> = [[], []];
    for (let i = 0; i < 2; i++) {
      const store = await openStore(db.settings, { hostId: 'hosta' });
      if (i === 0) await store.initSchema({ hostId: 'hosta' });
      stores.push(store);
      const m = new ClusterMember({
        hostId: 'hosta', ownIds: ['hosta'], store: () => store, logger: silent, heartbeatMs: 100, takeoverAfterMs: 2000,
        configuration: { members: 2, apply: (l) => applied[i]?.push(l) },
      });
      await m.start();
      members.push(m);
    }
    const store = stores[0] as Store;
    await store.limits.upsert({ hostId: 'hosta', readGlobalLimit: 1000, writeGlobalLimit: 2000, readSessionLimit: 300, writeSessionLimit: 400, delayLimit: 1000, updatedInfo: UpdatedInfo.TOSUBMIT });
    await waitFor(async () => (await store.limits.get('hosta'))?.updatedInfo === UpdatedInfo.NOTUPDATED, { timeoutMs: 10_000, what: 'row marked seen' });
    expect(applied.map((a) => a.length)).toEqual([1, 1]);
    expect(applied[1]?.[0]?.writeGlobalLimit).toBe(2000);
    expect((await store.multipleMonitors.get('hosta'))?.countConfig).toBe(0);
  }, 30_000);
});
