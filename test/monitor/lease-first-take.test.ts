// The push monitoring lease on a database where its row does not exist yet (a new cluster):
// members starting at the same moment must not both take it. Each member has its own connection,
// as separate processes would; on PostgreSQL and MariaDB a FOR UPDATE on a missing row locks nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseLease } from '../../src/monitor/leader.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { silent } from '../helpers/hosts.js';

const HOST = 'svc1';
const MEMBERS = 4;

describe.each(testDialects())('the first take of a lease on $name', (dialect) => {
  let db: TestDatabase | undefined;
  const stores: Store[] = [];

  beforeAll(async () => {
    db = await dialect.create();
    if (!db) return;
    const first = await openStore(db.settings, { hostId: HOST });
    await first.initSchema({ hostId: HOST });
    stores.push(first);
    for (let i = 1; i < MEMBERS; i++) stores.push(await openStore(db.settings, { hostId: HOST }));
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    await db?.drop();
  });

  it('goes to exactly one of the members starting at once', async (ctx) => {
    if (dialect.skip(ctx) || !db) return;
    for (let round = 0; round < 3; round++) {
      const job = `race-${round}`;
      const leases = stores.map((s) => new DatabaseLease({ job, hostId: HOST, store: () => s, logger: silent, ttlMs: 60_000, renewMs: 60_000 }));
      await Promise.all(leases.map((l) => l.start()));
      expect(leases.filter((l) => l.held), job).toHaveLength(1);
      // The row was created once and taken once.
      expect((await stores[0]!.multipleMonitors.get(`lease:${job}:${HOST}`))?.countRule).toBe(1);
      expect(await stores[0]!.multipleMonitors.insertIfAbsent({ hostId: `lease:${job}:${HOST}`, countConfig: 0, countHost: 0, countRule: 0 })).toBe(false);
      await Promise.all(leases.map((l) => l.stop()));
    }
  });
});
