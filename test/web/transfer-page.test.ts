// Keyset pages of transfers (src/web/transfer-page.ts) on a real SQLite store: every row once, newest
// start first, also when many rows share one start and across statuses; filters still apply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../../src/model/transfer.js';
import type { TransferFilter } from '../../src/store/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { splitFilter, transferPage } from '../../src/web/transfer-page.js';
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
  // Partner and rule rows: partnerB on either side, rule 'recv'; 101 is INERROR and in ERRORTASK
  // (two status parts), 102 is DONE with an error step (ERRORTASK), 103 is partnerB to partnerB.
  await store.runner.insertMany([
    transferRecord(101n, { requested: 'partnerB', idRule: 'recv', updatedInfo: UpdatedInfo.INERROR, globalStep: TaskStep.ERRORTASK, start: new Date(base + 40_000) }),
    transferRecord(102n, { requester: 'partnerB', requested: 'svc1', updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ERRORTASK, start: new Date(base + 41_000) }),
    transferRecord(103n, { requester: 'partnerB', requested: 'partnerB', idRule: 'recv', updatedInfo: UpdatedInfo.TOSUBMIT, start: new Date(base + 42_000) }),
    transferRecord(104n, { requested: 'partnerC', idRule: 'recv', updatedInfo: UpdatedInfo.DONE, globalStep: TaskStep.ALLDONETASK, start: new Date(base + 43_000) }),
  ]);
});

/** Every row of the filter, page after page of `size`. */
async function allPages(filter: TransferFilter, size: number, owners?: string[]): Promise<TransferRecord[]> {
  const rows: TransferRecord[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const p = await transferPage(store.runner, filter, size, cursor, owners === undefined ? {} : { owners });
    rows.push(...p.rows);
    if (p.next === undefined) return rows;
    cursor = p.next;
  }
  throw new Error('no last page');
}

/** The same rows the store gives for the filter in one query, newest first. */
async function expected(filter: TransferFilter): Promise<bigint[]> {
  return (await store.runner.list(filter, { orderBy: 'start', descending: true })).map((r) => r.specialId);
}

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
    expect(seen).toHaveLength(34);
    expect(new Set(seen).size).toBe(34);
    const starts = await Promise.all(seen.map(async (id) => (await store.runner.findBySpecialId('svc1', id))[0]!.start.getTime()));
    expect(starts).toEqual([...starts].sort((x, y) => y - x));
  });

  it('status boxes, partner and rule filters page to exactly the rows the store filter gives, each once', async () => {
    const filters: TransferFilter[] = [
      { ownerReq: 'svc1', status: { error: true } },
      { ownerReq: 'svc1', status: { done: true, pending: true } },
      { ownerReq: 'svc1', partner: 'partnerB' },
      { ownerReq: 'svc1', partner: 'partnerB', status: { error: true } },
      { ownerReq: 'svc1', idRule: 'recv' },
      { ownerReq: 'svc1', idRule: 'recv', partner: 'partnerC' },
      { ownerReq: 'svc1', idRule: 'recv', status: { done: true } },
    ];
    for (const filter of filters) {
      for (const size of [1, 2, 5]) {
        const ids = (await allPages(filter, size)).map((r) => r.specialId);
        expect(ids, JSON.stringify(filter)).toEqual(await expected(filter));
      }
    }
    // The error parts meet on 101 (INERROR and ERRORTASK): shown once.
    expect((await allPages({ ownerReq: 'svc1', status: { error: true } }, 3)).filter((r) => r.specialId === 101n)).toHaveLength(1);
  });

  it('each part is one indexed equality: rule/partner alone, else one UPDATEDINFO or GLOBALSTEP per part', () => {
    expect(splitFilter({ ownerReq: 'a', partner: 'p', status: { error: true } })).toEqual([
      { ownerReq: 'a', requester: 'p', status: { error: true } }, { ownerReq: 'a', requested: 'p', status: { error: true } },
    ]);
    expect(splitFilter({ ownerReq: 'a', idRule: 'r' })).toEqual([{ ownerReq: 'a', idRule: 'r' }]);
    expect(splitFilter({ ownerReq: 'a', status: { error: true } })).toEqual([
      { ownerReq: 'a', updatedInfo: [UpdatedInfo.INERROR] }, { ownerReq: 'a', updatedInfo: [UpdatedInfo.INTERRUPTED] }, { ownerReq: 'a', globalStep: [TaskStep.ERRORTASK] },
    ]);
    expect(splitFilter({ ownerReq: 'a' })).toHaveLength(7);
    expect(splitFilter({ ownerReq: 'a', updatedInfo: [UpdatedInfo.DONE] }, ['a', 'b'])).toEqual([
      { ownerReq: 'a', updatedInfo: [UpdatedInfo.DONE] }, { ownerReq: 'b', updatedInfo: [UpdatedInfo.DONE] },
    ]);
  });

  it('several owners (seeallid): the rows of each, merged newest first', async () => {
    const ids = (await allPages({ ownerReq: 'svc1' }, 7, ['svc1', 'other'])).map((r) => r.specialId);
    expect(ids[0]).toBe(99n);
    expect(ids).toHaveLength(35);
  });

  it('a status filter and an id range still apply', async () => {
    const p = await transferPage(store.runner, { ownerReq: 'svc1', updatedInfo: [UpdatedInfo.DONE], specialIdFrom: 10n }, 100);
    expect(p.rows.every((r) => r.updatedInfo === UpdatedInfo.DONE && r.specialId >= 10n)).toBe(true);
    expect(p.next).toBeUndefined();
  });
});
