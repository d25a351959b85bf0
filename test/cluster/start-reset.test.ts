// A member's start in a cluster resets INTERRUPTED rows to TOSUBMIT (as a single server does) but
// leaves RUNNING rows alone: another member may be running them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterMember } from '../../src/cluster/member.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, type Store } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { silent } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';

const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('a member\'s start on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let store: Store | undefined;
  let member: ClusterMember | undefined;

  beforeAll(async () => {
    db = await dbc.create();
  });
  afterAll(async () => {
    await member?.stop();
    await store?.close();
    await db?.drop();
  });

  it('resubmits INTERRUPTED rows and leaves RUNNING ones', async (ctx) => {
    if (dbc.skip(ctx) || db === undefined) return;
    store = await openStore(db.settings, { hostId: 'hosta' });
    await store.initSchema({ hostId: 'hosta' });
    const row = (id: bigint, updatedInfo: UpdatedInfo) => transferRecord(id, { ownerReq: 'hosta', requester: 'hosta', requested: 'hostb', updatedInfo });
    await store.runner.insert(row(1n, UpdatedInfo.INTERRUPTED));
    await store.runner.insert(row(2n, UpdatedInfo.RUNNING));
    member = new ClusterMember({ hostId: 'hosta', ownIds: ['hosta'], store: () => store as Store, logger: silent });
    await member.start();
    const key = (id: bigint) => ({ specialId: id, ownerReq: 'hosta', requester: 'hosta', requested: 'hostb' });
    expect((await store.runner.get(key(1n)))?.updatedInfo).toBe(UpdatedInfo.TOSUBMIT);
    expect((await store.runner.get(key(2n)))?.updatedInfo).toBe(UpdatedInfo.RUNNING);
  });
});
