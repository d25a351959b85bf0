// Issue 27 item 2: two members with the same host id on one database (PostgreSQL, MariaDB) and 100
// submitted transfers to a partner: each is requested exactly once (counted on the partner's side
// and by the members' engines) and every row ends DONE, none in error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { testDialects } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';
import { clusterSetup, knowsHostaAt, submitFiles, type ClusterSetup } from './members.js';

const N = 100;
const dialects = testDialects().filter((d) => d.name !== 'sqlite');

describe.each(dialects)('cluster claim on $name', (dbc) => {
  let setup: ClusterSetup | undefined;

  beforeAll(async () => {
    setup = await clusterSetup(dbc);
  });
  afterAll(async () => {
    await setup?.teardown();
  });

  it(`${N} submitted transfers each run once across two members`, async (ctx) => {
    if (dbc.skip(ctx) || setup === undefined) return;
    const [partner] = setup.partners;
    // The rows are submitted before the members start, so both scan the same due rows at once.
    const ids = await submitFiles(setup, Array.from({ length: N }, (_, i) => ({ name: `f${i}.txt`, bytes: `file ${i}\n` })));
    const requested = new Map<bigint, number>();
    partner!.engine.on('start', (r) => requested.set(r.specialId, (requested.get(r.specialId) ?? 0) + 1));
    const attempts = new Map<bigint, number>();
    for (let i = 0; i < 2; i++) {
      const m = await setup.member({ runLimit: 8 });
      m.engine.on('start', (r) => attempts.set(r.specialId, (attempts.get(r.specialId) ?? 0) + 1));
      // The partner knows hosta at the first member's port (both would do: one logical host).
      if (i === 0) knowsHostaAt(partner!, m.listener.port);
    }
    const reader = setup.members[0]!.store;
    const rows = await waitFor(async () => {
      const all = await reader.runner.list({ ownerReq: 'hosta' });
      return all.length === N && all.every((r) => r.updatedInfo === UpdatedInfo.DONE || r.updatedInfo === UpdatedInfo.INERROR) ? all : undefined;
    }, { timeoutMs: 60_000, what: 'all rows finished' });
    expect(rows.filter((r) => r.updatedInfo !== UpdatedInfo.DONE)).toEqual([]);
    for (const id of ids) {
      expect(requested.get(id), `requests of ${id} at the partner`).toBe(1);
      expect(attempts.get(id), `attempts of ${id} by the members`).toBe(1);
    }
    // Both members took a share (the claim is a lock, not a single runner).
    const byMember = new Set(rows.map((r) => /"CLUSTERMEMBER":(\d+)/.exec(r.transferInfo)?.[1]));
    expect(byMember.size).toBe(2);
  }, 90_000);
});
