// Issue 32: a recursive FileWatcher and symbolic links, between real processes (hostb a running
// server, the watcher a real `svc-r66client spool`): a symlinked directory (`ln -s /etc etcdir`) is
// not followed, and a file whose order is refused is logged once, not at every scan.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sandbox, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { received, startWatcher, waitScans, type WatchSetup, watchPairRunning, writeClientSide } from './watch-helpers.js';

const lines = (proc: Running): string[] => proc.stderr().split('\n').filter((l) => l.trim() !== '');


describe('FileWatcher -recursive and symbolic links (real processes)', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;
  let w: WatchSetup;
  let watcher: Running | undefined;

  beforeEach(() => {
    box = sandbox();
  });

  afterEach(() => {
    if (watcher && watcher.child.exitCode === null) watcher.child.kill('SIGKILL');
    killNodes(a, b);
    box.cleanup();
  });

  it('does not follow a symlinked directory (ln -s /etc etcdir): nothing of /etc is ordered or logged; real sub-directories are', async () => {
    ({ a, b, w } = await watchPairRunning(box));
    mkdirSync(join(w.spool, 'sub'));
    symlinkSync('/etc', join(w.spool, 'etcdir'));
    writeFileSync(join(w.spool, 'sub', 'inner.dat'), 'inner file');
    watcher = await startWatcher(w, ['-recursive', '-direct']);
    await waitFor(() => received(b).some((n) => n.endsWith('inner.dat')), { what: 'inner.dat sent', timeoutMs: 30_000 });
    writeFileSync(join(w.spool, 'f.dat'), 'file');
    await waitFor(() => received(b).some((n) => n.endsWith('f.dat')), { what: 'f.dat sent', timeoutMs: 30_000 });
    // Twenty more scans, each of which would have seen /etc again.
    await waitScans(w, 20);
    const all = lines(watcher);
    expect(all.filter((l) => l.includes('/etcdir/')), all.join('\n')).toEqual([]);
    expect(all.filter((l) => l.includes('"level":50') || l.includes('"level":"error"'))).toEqual([]);
    expect(received(b).filter((n) => /passwd|hosts|fstab/.test(n))).toEqual([]);
  }, 120_000);

  it('a file the partner refuses is logged once, not at every scan', async () => {
    // hostb's rule send admits only another partner: every order of hosta is refused by hostb.
    const closed = { 'send.rule.xml': '<rule><idrule>send</idrule><hostids><hostid>hostc</hostid></hostids><mode>1</mode></rule>\n' };
    ({ a, b } = await writeNodePair(box, { rules: SEND_RULE }, { rules: closed }));
    await startNode(b);
    w = writeClientSide(box, a);
    writeFileSync(join(w.spool, 'refused.dat'), 'refused by the partner');
    watcher = await startWatcher(w, ['-direct']);
    const failed = (): string[] => lines(watcher!).filter((l) => l.includes('refused.dat') && l.includes('transfer failed'));
    await waitFor(() => failed().length >= 1, { what: 'the refusal logged', timeoutMs: 30_000 });
    // Each retry comes two scans after the previous one: 30 scans = about 15 more refusals.
    await waitScans(w, 30);
    expect(failed(), lines(watcher).join('\n')).toHaveLength(1);
    expect(received(b)).toEqual([]);
  }, 120_000);
});
