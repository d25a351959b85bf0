// The FileWatcher between real processes: hostb a running server, the watcher a real
// `svc-r66client spool` in direct mode. Files are dropped while the watcher is killed twice with
// SIGKILL; every file must arrive exactly once, byte-identical, and the dead watcher's lock is
// taken over at each restart.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, sqliteRows, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { received, startWatcher, writeClientSide, type WatchSetup } from './watch-helpers.js';

const FILES = 200;

function content(i: number): Buffer {
  return Buffer.from(`file ${i} `.repeat(50 + (i % 37) * 20));
}

describe('FileWatcher: exactly once across kill -9 (real processes)', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;
  let w: WatchSetup;
  let watcher: Running | undefined;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: SEND_RULE }, { rules: SEND_RULE }));
    await startNode(b);
    w = writeClientSide(box, a);
  }, 60_000);

  afterEach(() => {
    if (watcher && watcher.child.exitCode === null) watcher.child.kill('SIGKILL');
    killNodes(a, b);
    box.cleanup();
  });

  it(`${FILES} files dropped, the watcher killed twice: each arrives once, identical`, async () => {
    const args = ['-direct', '-limitParallel', '4'];
    watcher = await startWatcher(w, args);
    const logs: string[] = [];
    let dropped = 0;
    const drop = (n: number): void => {
      for (const end = Math.min(FILES, dropped + n); dropped < end; dropped++) writeFileSync(join(w.spool, `f${String(dropped).padStart(4, '0')}.dat`), content(dropped));
    };
    drop(80);
    for (const threshold of [20, 90]) {
      await waitFor(() => received(b).length >= threshold, { what: `${threshold} files received`, timeoutMs: 60_000 });
      watcher.child.kill('SIGKILL');
      await watcher.exited;
      logs.push(watcher.stderr());
      drop(60);
      watcher = await startWatcher(w, args);
    }
    drop(FILES);
    await waitFor(() => received(b).length >= FILES, { what: `${FILES} files received`, timeoutMs: 90_000 });
    // Until the watcher says every file is sent: a duplicate would have come by then. (hostb's rows
    // of the transfers it was ending when killed may stay interrupted after their file arrived.)
    const usedInState = (): number => {
      try {
        return Object.values(JSON.parse(readFileSync(w.statusFile, 'utf8')) as Record<string, { used: boolean; status: string }>).filter((s) => s.used && s.status === 'DONE').length;
      } catch {
        return 0; // being replaced
      }
    };
    await waitFor(() => usedInState() >= FILES, { what: 'every file sent according to the state file', timeoutMs: 60_000 });
    const names = received(b).sort();
    expect(names).toHaveLength(FILES);
    for (let i = 0; i < FILES; i++) {
      const name = `f${String(i).padStart(4, '0')}.dat`;
      // The receiver may prefix the name with the transfer id: exactly one file per dropped file.
      const found = names.filter((f) => f === name || f.endsWith(`_${name}`));
      expect(found, name).toHaveLength(1);
      const got = createHash('md5').update(readFileSync(join(b.home, 'in', found[0]!))).digest('hex');
      expect(got, name).toBe(createHash('md5').update(content(i)).digest('hex'));
    }
    const rows = await sqliteRows<{ n: number }>(b.db, 'SELECT COUNT(*) AS n FROM runner');
    expect(rows[0]!.n).toBe(FILES);
    // Both restarts found the dead watcher's lock and took it over.
    logs.push(watcher.stderr());
    expect(logs.slice(1).join('').match(/stale lock/g)?.length ?? 0).toBe(2);
    writeFileSync(w.stopFile, '');
    expect((await watcher.exited).code).toBe(0);
  }, 240_000);
});
