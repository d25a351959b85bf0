// The database side of the live pages (src/web/db-feed.ts) on a real SQLite store: a row another
// writer inserts or changes is returned once, an unchanged one is not returned again, a burst larger
// than the read limit is walked through to the end, and nothing is read behind the re-read window.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore, parseJdbcUrl, type Store } from '../../src/store/index.js';
import { DatabaseFeed } from '../../src/web/db-feed.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { setStoredRow } from '../helpers/stored-row.js';

let dir: string;
let store: Store;
let clock: number;
const now = (): Date => new Date(clock);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-feed-'));
  store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${join(dir, 'db.sqlite')}`), { hostId: 'svc1' });
  await store.initSchema({ hostId: 'svc1' });
  clock = new Date(2026, 0, 1, 12, 0, 0).getTime();
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ids = (rows: Array<{ specialId: bigint }>): bigint[] => rows.map((r) => r.specialId);

describe('DatabaseFeed', () => {
  it('returns a new or changed row once, not an unchanged one', async () => {
    const feed = new DatabaseFeed(store.runner, { now, slackMs: 5000 });
    expect(await feed.poll()).toEqual([]);
    await store.runner.insert(transferRecord(1n, { updatedInfo: UpdatedInfo.TOSUBMIT, stop: new Date(clock + 100) }));
    clock += 1000;
    expect(ids(await feed.poll())).toEqual([1n]);
    expect(await feed.poll()).toEqual([]);
    const key = { specialId: 1n, requester: 'svc1', requested: 'partnerA', ownerReq: 'svc1' };
    await setStoredRow(store.runner, key, { updatedInfo: UpdatedInfo.RUNNING, stop: new Date(clock + 200) });
    const [changed] = await feed.poll();
    expect(changed?.updatedInfo).toBe(UpdatedInfo.RUNNING);
    // A row stamped a moment before the newest one seen (a late commit) is still caught.
    await store.runner.insert(transferRecord(2n, { stop: new Date(clock - 2000) }));
    expect(ids(await feed.poll())).toEqual([2n]);
    // Older than the window: another writer's history, not news.
    await store.runner.insert(transferRecord(3n, { stop: new Date(clock - 60_000) }));
    expect(await feed.poll()).toEqual([]);
  });

  it('a row stamped ahead of this clock (a writer whose clock is ahead) hides no other writer\'s rows', async () => {
    const feed = new DatabaseFeed(store.runner, { now, slackMs: 5000 });
    await feed.poll();
    // A cluster member whose clock is a minute ahead, then a CLI client on this host's time.
    await store.runner.insert(transferRecord(11n, { stop: new Date(clock + 60_000) }));
    clock += 1000;
    expect(ids(await feed.poll())).toEqual([11n]);
    await store.runner.insert(transferRecord(12n, { stop: new Date(clock + 100) }));
    clock += 1000;
    expect(ids(await feed.poll())).toEqual([12n]);
    // The ahead row, unchanged, is not sent again; changed, it is.
    expect(await feed.poll()).toEqual([]);
    await setStoredRow(store.runner, { specialId: 11n, requester: 'svc1', requested: 'partnerA', ownerReq: 'svc1' }, { updatedInfo: UpdatedInfo.DONE, stop: new Date(clock + 61_000) });
    expect(ids(await feed.poll())).toEqual([11n]);
  });

  it('walks a burst larger than its limit in several polls, each row once', async () => {
    const feed = new DatabaseFeed(store.runner, { now, limit: 10 });
    await feed.poll();
    await store.runner.insertMany(Array.from({ length: 25 }, (_, i) => transferRecord(BigInt(100 + i), { stop: new Date(clock + i) })));
    const seen: bigint[] = [];
    for (let i = 0; i < 4; i++) seen.push(...ids(await feed.poll()));
    expect(seen.sort((x, y) => Number(x - y))).toEqual(Array.from({ length: 25 }, (_, i) => BigInt(100 + i)));
  });

  it('after reset (nobody watching), starts again from now', async () => {
    const feed = new DatabaseFeed(store.runner, { now, slackMs: 1000 });
    await feed.poll();
    await store.runner.insert(transferRecord(7n, { stop: new Date(clock + 10) }));
    feed.reset();
    clock += 60_000;
    expect(await feed.poll()).toEqual([]);
  });
});
