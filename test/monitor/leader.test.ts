/**
 * The cluster case (monitoring.md A.7): two members sharing one database and host id; exactly one
 * pushes, and when it dies the other takes over and resumes from the stored date.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushMonitorConfig } from '../../src/config/index.js';
import { DatabaseLease } from '../../src/monitor/leader.js';
import { PushExporter } from '../../src/monitor/push/exporter.js';
import { HttpPushTarget } from '../../src/monitor/push/http-target.js';
import { openStore, parseJdbcUrl, type Store } from '../../src/store/index.js';
import { silent } from '../helpers/hosts.js';
import { transferRecord } from '../helpers/transfer-record.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, tempStore, type Receiver } from './push-helpers.js';

const HOST = 'svc1';

describe('one member of a cluster pushes (database lease)', () => {
  let db: Awaited<ReturnType<typeof tempStore>>;
  let second: Store;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await tempStore(HOST);
    // The second member: its own connection to the same database.
    second = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${path.join(db.dir, 'db.sqlite')}`), { hostId: HOST });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await second.close();
    await db.close();
  });

  function member(store: () => Store): { lease: DatabaseLease; exporter: PushExporter } {
    const lease = new DatabaseLease({ job: 'pushmonitor', hostId: HOST, store, logger: silent, ttlMs: 1000, renewMs: 150 });
    const config: PushMonitorConfig = {
      kind: 'rest', url: `http://127.0.0.1:${receiver.port}`, delay: 1000, intervalIncluded: true, transformLongAsString: false, token: undefined, apiKey: undefined,
      endpoint: '/', keepConnection: true, basicAuthent: undefined, index: undefined, prefix: undefined, username: undefined, password: undefined, compression: true,
    };
    const exporter = new PushExporter({
      hostId: HOST, store, target: new HttpPushTarget(config, HOST, 'X-WAARP', 5000, undefined), delayMs: 1000, intervalIncluded: true,
      transformLongAsString: false, intervalKey: 'waarpMonitor', logger: silent, lease,
    });
    return { lease, exporter };
  }

  it('exactly one pushes; when it dies the other takes over within the lease time and resumes from the stored date', async () => {
    let firstAlive = true;
    const a = member(() => { if (!firstAlive) throw new Error('member a is gone'); return db.store; });
    const b = member(() => second);
    await a.lease.start();
    await b.lease.start();
    expect([a.lease.held, b.lease.held]).toEqual([true, false]);

    // A second before now: a record updated in the very millisecond of a push is pushed again by
    // the next one (both bounds inclusive, as the original: monitoring.md), which is not this case.
    await db.store.runner.insert(transferRecord(1n, { ownerReq: HOST, stop: new Date(Date.now() - 1000) }));
    expect(await b.exporter.run()).toBe('not-leader');
    expect(await a.exporter.run()).toBe('pushed');
    expect(receiver.received).toHaveLength(1);
    const stopOfA = receiver.received[0]!.headers['x-waarp-stop'];

    // Member a dies (its database calls fail from now on): b holds the lease once a's expires.
    firstAlive = false;
    await db.store.runner.insert(transferRecord(2n, { ownerReq: HOST, stop: new Date() }));
    const started = Date.now();
    await waitFor(() => b.lease.held, { timeoutMs: 5000, what: 'member b to take the lease' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(a.lease.held).toBe(false);
    expect(await b.exporter.run()).toBe('pushed');
    const r = receiver.received[1]!;
    expect(r.headers['x-waarp-start']).toBe(stopOfA);
    expect(r.body).toContain('"specialId":2,');
    expect(r.body).not.toContain('"specialId":1,');

    // A graceful stop hands the lease back at once.
    firstAlive = true;
    await b.lease.stop();
    await waitFor(() => a.lease.held, { timeoutMs: 3000, what: 'member a to take the released lease' });
    await a.lease.stop();
    await Promise.all([a.exporter.stop(), b.exporter.stop()]);
  });
});
