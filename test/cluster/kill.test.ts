// Issue 27 take-over with real processes, the CI size of the full run (npm script in
// docs/cluster.md, bench/cluster/takeover-run.ts): three svc servers of hosta (same host id,
// multiplemonitors 3, clustertakeover 3000) on one PostgreSQL schema and a shared home, hostb on
// SQLite. masend of 400 small and 2 larger files; a member is killed with SIGKILL twice in the
// middle (member 1 at 20%, member 2 at 55% of the files; each started again at once); the others
// take the killed member's transfers over: every file arrives at hostb once, byte-identical, and
// every row ends DONE.
import { describe, expect, it } from 'vitest';
import { runTakeoverScenario } from '../../bench/cluster/takeover-scenario.js';
import { testDialects } from '../helpers/databases.js';
import { runSvc, startSvcServer } from './processes.js';

const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('kill -9 of a member, twice, on $name', (dbc) => {
  it('the others resume the killed member\'s transfers; each file arrives once, byte-identical', async (ctx) => {
    const db = await dbc.create();
    if (dbc.skip(ctx) || db === undefined) return;
    try {
      const s = db.settings;
      if (s.dialect === 'sqlite') throw new Error('a database server is expected');
      const result = await runTakeoverScenario({
        jdbc: `jdbc:postgresql://${s.host}:${s.port}/${s.database}?currentSchema=${db.name}`,
        query: (text) => db.query(text),
        procs: { run: runSvc, start: startSvcServer },
        members: 3, small: 400, smallBytes: 6000, large: 2, largeBytes: 8 << 20, kills: [0.2, 0.55],
        takeoverMs: 3000, runLimit: 8, finishTimeoutMs: 60_000,
      });
      expect(result.kills).toHaveLength(2);
      // Each kill hit a member in the middle of its transfers.
      expect(result.kills.every((k) => k.runningAtKill > 0), JSON.stringify(result.kills)).toBe(true);
      expect(result.kills.every((k) => k.handedBackMs < 3000 + 1000 + 3000 + 5000), JSON.stringify(result.kills)).toBe(true);
      expect({ notDone: result.notDone, missing: result.missing, duplicated: result.duplicated, differing: result.differing, unexpected: result.unexpected })
        .toEqual({ notDone: 0, missing: [], duplicated: [], differing: [], unexpected: [] });
      expect(result.hostbRows).toBe(result.files);
    } finally {
      await db.drop();
    }
  }, 110_000);
});
