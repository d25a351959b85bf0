// Keyset pages of transfers (src/web/transfer-page.ts) on a real SQLite store: every row once, newest
// start first, also when many rows share one start and across statuses; filters still apply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, type Store } from '../../src/store/index.js';
import { transferPage } from '../../src/web/transfer-page.js';
import { testDialects } from '../helpers/databases.js';
import { transferRecord } from '../helpers/transfer-record.js';

let store: Store;
const base = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  const db = await testDialects()[0]!.create();
  store = await openStore(db!.settings, { hostId: 'svc1' });
  await store.initSchema({ hostId: 'svc1' });
  const statuses = [UpdatedInfo.DONE, UpdatedInfo.INERROR, UpdatedInfo.TOSUBMIT, UpdatedInfo.RUNNING];
  // 30 rows: starts in groups of 3 (ties), statuses mixed; one other owner's row.
  await store.runner.insertMany(Array.from({ length: 30 }, (_, i) => transferRecord(BigInt(i + 1), { start: new Date(base + Math.floor(i / 3) * 1000), updatedInfo: statuses[i % 4]! })));
  await store.runner.insert(transferRecord(99n, { ownerReq: 'other', requester: 'other', start: new Date(base + 99_000) }));
});

afterAll(async () => {
  await store?.close();
});

describe('transfer pages', () => {
  it('walks every row once, newest start first, through ties and statuses', async () => {
    const seen: bigint[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const p = await transferPage(store.runner, { ownerReq: 'svc1' }, 4, cursor);
      seen.push(...p.rows.map((r) => r.specialId));
      if (p.next === undefined) break;
      cursor = p.next;
    }
    expect(seen).toHaveLength(30);
    expect(new Set(seen).size).toBe(30);
    const starts = await Promise.all(seen.map(async (id) => (await store.runner.findBySpecialId('svc1', id))[0]!.start.getTime()));
    expect(starts).toEqual([...starts].sort((x, y) => y - x));
  });

  it('a status filter and an id range still apply', async () => {
    const p = await transferPage(store.runner, { ownerReq: 'svc1', updatedInfo: [UpdatedInfo.DONE], specialIdFrom: 10n }, 100);
    expect(p.rows.every((r) => r.updatedInfo === UpdatedInfo.DONE && r.specialId >= 10n)).toBe(true);
    expect(p.next).toBeUndefined();
  });
});
