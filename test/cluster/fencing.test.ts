// Issue 27 fencing, PostgreSQL and MariaDB. Member A sends its claimed transfers (slowly,
// bandwidth-limited) when it loses the database; member B takes the rows over and sends them. At no
// time does a transfer run on both: whenever B starts one nothing runs on A, and at the partner a
// transfer's sessions never overlap. Every file arrives once, byte-identical. When the database is
// back, A claims again and writes nothing over B's rows. Two ways to lose it:
// - heartbeat blocked: A's heartbeat row is locked by another connection, so A's heartbeat waits
//   while its transfers' writes go through; the fence (not a failed write) must stop them;
// - cut: the relay between A and the database resets every connection; A's transfers fail at their
//   next state write, the fence drops their unrecorded ends.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberOf } from '../../src/cluster/member.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { testDialects } from '../helpers/databases.js';
import { patternBytes, receivedContent } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { holdRowLock, startDbProxy, type DbProxy } from './db-proxy.js';
import { clusterSetup, knowsHostaAt, submitFiles, type ClusterSetup } from './members.js';

const FILES = 6;
const SIZE = 3 << 20;
const TAKEOVER_MS = 3000;
const dialects = testDialects().filter((d) => d.name !== 'sqlite');

describe.each(dialects)('fencing of a member that lost the database on $name', (dbc) => {
  let setup: ClusterSetup | undefined;
  let proxy: DbProxy | undefined;

  beforeAll(async () => {
    setup = await clusterSetup(dbc);
    if (setup === undefined) return;
    const s = setup.db.settings;
    if (s.dialect === 'sqlite') throw new Error('a database server is expected');
    proxy = await startDbProxy({ host: s.host, port: s.port });
  });
  afterAll(async () => {
    proxy?.restore();
    await setup?.teardown();
    await proxy?.close();
  });

  async function scenario(how: 'heartbeat blocked' | 'cut'): Promise<void> {
    const s = setup!.db.settings;
    if (s.dialect === 'sqlite' || proxy === undefined) return;
    const partner = setup!.partners[0]!;
    const files = Array.from({ length: FILES }, (_, i) => ({ name: `${how === 'cut' ? 'cut' : 'lock'}${i}.bin`, bytes: patternBytes(SIZE + i, i + 11) }));
    const ids = await submitFiles(setup!, files);

    // Sessions at the partner, in order, per transfer id.
    const sessions: Array<{ id: bigint; kind: 'start' | 'end' }> = [];
    partner.engine.on('start', (r) => sessions.push({ id: r.specialId, kind: 'start' }));
    partner.engine.on('end', (o) => sessions.push({ id: o.record.specialId, kind: 'end' }));

    // A: through the relay, 1 MiB/s for all its transfers together (about 18 s for the six).
    const a = await setup!.member({ takeoverAfterMs: TAKEOVER_MS, runLimit: 8, limits: { globalLimit: 1 << 20 }, settings: { ...s, host: '127.0.0.1', port: proxy.port } });
    knowsHostaAt(partner, a.listener.port);
    // Cut once every transfer is past its start and its data flows.
    await waitFor(async () => {
      if (a.engine.runningCount !== FILES) return false;
      const work = await readdir(partner.dirs.work);
      const sizes = await Promise.all(work.map(async (f) => (await stat(path.join(partner.dirs.work, f)).catch(() => ({ size: 0 }))).size));
      return sizes.filter((n) => n > 256 << 10).length >= FILES;
    }, { timeoutMs: 30_000, what: 'A sending every transfer' });
    const b = await setup!.member({ takeoverAfterMs: TAKEOVER_MS, runLimit: 8 });
    const runningOnAWhenBStarts: number[] = [];
    b.engine.on('start', () => runningOnAWhenBStarts.push(a.engine.runningCount));

    const lostAt = Date.now();
    const lock = how === 'cut' ? undefined : await holdRowLock(s, `member:hosta:${a.cluster.member}`);
    if (how === 'cut') proxy.cut();
    try {
      await waitFor(() => a.engine.runningCount === 0, { timeoutMs: 15_000, intervalMs: 20, what: 'A\'s transfers stopped' });
      const stoppedAfterMs = Date.now() - lostAt;
      if (how === 'heartbeat blocked') {
        // Its transfers were healthy: the fence stopped them, three quarters into the window.
        expect(a.cluster.owning()).toBe(false);
        expect(stoppedAfterMs).toBeGreaterThan(TAKEOVER_MS / 2 - 1000);
      }
      expect(stoppedAfterMs).toBeLessThan(TAKEOVER_MS + 1000);

      const done = await waitFor(async () => {
        const all = (await b.store.runner.list({ ownerReq: 'hosta' })).filter((r) => ids.includes(r.specialId));
        return all.length === FILES && all.every((r) => r.updatedInfo === UpdatedInfo.DONE) ? all : undefined;
      }, { timeoutMs: 60_000, what: 'every row done by B' });
      expect(done.every((r) => memberOf(r.transferInfo) === b.cluster.member)).toBe(true);
      expect(runningOnAWhenBStarts.length).toBeGreaterThanOrEqual(FILES);
      expect(runningOnAWhenBStarts.every((n) => n === 0), `transfers running on A when B started one: ${runningOnAWhenBStarts.join(',')}`).toBe(true);
      for (const id of ids) {
        let open = 0;
        for (const e of sessions.filter((x) => x.id === id)) {
          open += e.kind === 'start' ? 1 : -1;
          expect(open, `sessions of ${id} open at once at the partner`).toBeLessThanOrEqual(1);
        }
      }
      for (const f of files) {
        expect((await receivedContent(partner.dirs.in, f.name)).equals(await readFile(path.join(setup!.home.dirs.out, f.name))), f.name).toBe(true);
      }

    } finally {
      // The database is back for A.
      await lock?.release();
      proxy.restore();
    }
    // A claims again and writes nothing over B's rows.
    await waitFor(() => a.cluster.owning(), { timeoutMs: 15_000, what: 'A owning again' });
    const after = (await b.store.runner.list({ ownerReq: 'hosta' })).filter((r) => ids.includes(r.specialId));
    expect(after.map((r) => [r.updatedInfo, memberOf(r.transferInfo)])).toEqual(after.map(() => [UpdatedInfo.DONE, b.cluster.member]));
    partner.engine.removeAllListeners('start');
    partner.engine.removeAllListeners('end');
    for (const m of setup!.members.splice(0)) await m.close();
  }

  it('heartbeat blocked: the fence stops A\'s transfers before B takes them over; every file once', async (ctx) => {
    if (dbc.skip(ctx) || setup === undefined) return;
    await scenario('heartbeat blocked');
  }, 120_000);

  it('cut from the database: A\'s transfers stop, B resumes them; every file once; A writes nothing stale', async (ctx) => {
    if (dbc.skip(ctx) || setup === undefined) return;
    await scenario('cut');
  }, 120_000);
});
