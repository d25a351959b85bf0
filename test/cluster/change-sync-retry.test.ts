// A member whose count of a changed row failed (on MariaDB two members' first counts of a new
// MULTIPLEMONITOR row can deadlock: one transaction is rolled back) counts itself again at its next
// check, without applying the row a second time; else the row would stay at UPDATEDINFO 3 for ever.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { HostConfigSync } from '../../src/cluster/config-sync.js';
import type { HostConfig } from '../../src/model/host-config.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import type { Store } from '../../src/store/index.js';

describe('a changed row whose count failed', () => {
  it('is counted again at the next check and applied once', async () => {
    let row: HostConfig = { hostId: 'hosta', business: '', roles: '<roles/>', aliases: '', others: '', updatedInfo: UpdatedInfo.TOSUBMIT };
    let counter = { hostId: 'hostconfig:hosta', countConfig: 0, countHost: 0, countRule: 0 };
    let failNext = true;
    const repos = {
      hostConfigs: { get: async () => row, setUpdatedInfo: async (_id: string, u: number) => { row = { ...row, updatedInfo: u }; } },
      multipleMonitors: { insertIfAbsent: async () => false, getForUpdate: async () => counter, upsert: async (mm: typeof counter) => { counter = mm; } },
    };
    const store = {
      ...repos,
      async transaction<T>(fn: (tx: typeof repos) => Promise<T>): Promise<T> {
        if (failNext) {
          failNext = false;
          throw new Error('Deadlock found when trying to get lock; try restarting transaction');
        }
        return fn(repos);
      },
    } as unknown as Store;
    let applied = 0;
    const sync = new HostConfigSync({ hostId: 'hosta', members: 1 + 1, store: () => store, apply: () => { applied += 1; }, logger: pino({ level: 'silent' }) });
    await expect(sync.check()).rejects.toThrow(/Deadlock/);
    expect(await sync.check()).toBe(true);
    expect(await sync.check()).toBe(false);
    expect([applied, counter.countConfig, row.updatedInfo]).toEqual([1, 1, UpdatedInfo.TOSUBMIT]);
  });

  it('a single server marks the row seen with no counter', async () => {
    let row: HostConfig = { hostId: 'hosta', business: '', roles: '<roles/>', aliases: '', others: '', updatedInfo: UpdatedInfo.TOSUBMIT };
    const store = {
      hostConfigs: { get: async () => row, setUpdatedInfo: async (_id: string, u: number) => { row = { ...row, updatedInfo: u }; } },
      multipleMonitors: { getForUpdate: () => { throw new Error('no counter on a single server'); } },
      transaction: () => { throw new Error('no transaction on a single server'); },
    } as unknown as Store;
    let applied = 0;
    const sync = new HostConfigSync({ hostId: 'hosta', members: 1, store: () => store, apply: () => { applied += 1; }, logger: pino({ level: 'silent' }) });
    expect(await sync.check()).toBe(true);
    expect([applied, row.updatedInfo]).toEqual([1, UpdatedInfo.NOTUPDATED]);
    expect(await sync.check()).toBe(false);
  });
});
