// Issue 27 item 2: two members with the same host id on one database (PostgreSQL, MariaDB) and 100
// submitted transfers to a partner: each is requested exactly once (counted on the partner's side
// and by the members' engines) and every row ends DONE, none in error.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../helpers/databases.js';
import { closeHosts, makeHost, rule, type TestHost } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';
import { hostEntry, makeMember, passwordOf, sharedHome, type Member } from './members.js';

const N = 100;
const dialects = testDialects().filter((d) => d.name !== 'sqlite');

describe.each(dialects)('cluster claim on $name', (dbc) => {
  let db: TestDatabase | undefined;
  let partner: TestHost | undefined;
  let home: Awaited<ReturnType<typeof sharedHome>> | undefined;
  const members: Member[] = [];

  beforeAll(async () => {
    db = await dbc.create();
    if (db === undefined) return;
    const init = await openStore(db.settings, { hostId: 'hosta' });
    await init.initSchema({ hostId: 'hosta' });
    await init.rules.upsert(rule('send', TransferMode.SENDMODE));
    await init.close();
    partner = await makeHost('hostb');
    await partner.addRule(rule('send', TransferMode.SENDMODE));
    home = await sharedHome();
  });
  afterAll(async () => {
    for (const m of members) await m.close();
    await closeHosts(partner);
    await home?.remove();
    await db?.drop();
  });

  it(`${N} submitted transfers each run once across two members`, async (ctx) => {
    if (dbc.skip(ctx) || db === undefined || partner === undefined || home === undefined) return;
    // The rows are submitted before the members start, so both scan the same due rows at once.
    const submitter = await openStore(db.settings, { hostId: 'hosta' });
    const engineLess = await makeMember('hosta', db.settings, home.dirs, [partner]);
    await engineLess.scheduler.stop();
    await engineLess.cluster.stop();
    const ids: bigint[] = [];
    for (let i = 0; i < N; i++) {
      await writeFile(path.join(home.dirs.out, `f${i}.txt`), `file ${i}\n`);
      ids.push(await engineLess.engine.submitLater({ partner: 'hostb', rule: 'send', file: `f${i}.txt` }));
    }
    await engineLess.close();
    // The partner knows hosta at the first member's port (both would do: one logical host).
    const requested = new Map<bigint, number>();
    partner.engine.on('start', (r) => requested.set(r.specialId, (requested.get(r.specialId) ?? 0) + 1));
    const attempts = new Map<bigint, number>();
    for (let i = 0; i < 2; i++) {
      const m = await makeMember('hosta', db.settings, home.dirs, [partner], { runLimit: 8 });
      m.engine.on('start', (r) => attempts.set(r.specialId, (attempts.get(r.specialId) ?? 0) + 1));
      members.push(m);
      if (i === 0) partner.directory.set({ host: hostEntry('hosta', m.listener.port), password: passwordOf('hosta') });
    }
    const rows = await waitFor(async () => {
      const all = await submitter.runner.list({ ownerReq: 'hosta' });
      return all.length === N && all.every((r) => r.updatedInfo === UpdatedInfo.DONE || r.updatedInfo === UpdatedInfo.INERROR) ? all : undefined;
    }, { timeoutMs: 60_000, what: 'all rows finished' });
    await submitter.close();
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
