// The watcher commands with real processes: `watcher start` in service mode running the two
// watchers of client.xml's <spooleddaemon> in one process, status, stop; `spool`'s exit codes.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasNoStack, runCli, sandbox, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { received, spoolArgs, startWatcher, writeClientSide } from './watch-helpers.js';

describe('svc-r66client watcher and spool commands', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: SEND_RULE }, { rules: SEND_RULE }));
  }, 60_000);

  afterEach(async () => {
    await runCli('client', ['watcher', 'stop'], { ...a.env }).catch(() => undefined);
    killNodes(a, b);
    box.cleanup();
  });

  it('watcher start (service mode) runs the watchers of <spooleddaemon> in one process; status; stop', async () => {
    await startNode(b);
    const d1 = join(box.dir, 'd1');
    const d2 = join(box.dir, 'd2');
    const spooled = (name: string, dir: string): string => `<spooled><name>${name}</name><to>hostb</to><rule>send</rule>`
      + `<statusfile>${join(box.dir, `${name}.json`)}</statusfile><directory>${dir}</directory><elapse>100</elapse><submit>False</submit></spooled>`;
    writeClientSide(box, a, `<spooleddaemon><stopfile>${join(box.dir, 'stop')}</stopfile>${spooled('one', d1)}${spooled('two', d2)}</spooleddaemon>`);
    mkdirSync(d1);
    mkdirSync(d2);
    const env = { ...a.env, SVC_SERVICE: '1' };
    const started = await runCli('client', ['watcher', 'start'], env);
    expect(started.code, started.stdout + started.stderr).toBe(0);
    expect(started.stdout).toContain('started in the background');
    const status = await runCli('client', ['watcher', 'status'], a.env);
    expect(status.stdout).toContain('running');
    expect(status.code).toBe(0);
    writeFileSync(join(d1, 'one.txt'), 'one');
    writeFileSync(join(d2, 'two.txt'), 'two');
    await waitFor(() => received(b).length >= 2, { what: 'both watchers sent', timeoutMs: 30_000 });
    const stopped = await runCli('client', ['watcher', 'stop'], a.env);
    expect(stopped.stdout).toContain('done');
    expect(stopped.code).toBe(0);
    const after = await runCli('client', ['watcher', 'status'], a.env);
    expect(after.stdout).toContain('not running');
    expect(after.code).toBe(1);
    expect(existsSync(join(box.dir, 'one.json'))).toBe(true);
  }, 120_000);

  it('spool in submit mode: TOSUBMIT rows in the shared database, run by the local server\'s scheduler', async () => {
    await startNode(b);
    await startNode(a);
    // The server runs the rows: its file policy wants the files inside its directories.
    const w = { ...writeClientSide(box, a), spool: join(a.home, 'out', 'spool') };
    mkdirSync(w.spool);
    const proc = await startWatcher(w);
    for (let i = 0; i < 3; i++) writeFileSync(join(w.spool, `s${i}.txt`), `submitted ${i}`);
    await waitFor(() => received(b).length >= 3, { what: 'three files through the scheduler', timeoutMs: 30_000 });
    expect(proc.stderr().match(/"msg":"file submitted"/g)).toHaveLength(3);
    writeFileSync(w.stopFile, '');
    expect((await proc.exited).code).toBe(0);
  }, 60_000);

  it('spool: missing options exit 2 with a clear message; a present stop file means no start and exit 0', async () => {
    const w = writeClientSide(box, a);
    const bad = await runCli('client', ['spool', w.clientXml, '-to', 'hostb', '-rule', 'send'], w.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('missing -directory, -statusfile, -stopfile');
    expect(hasNoStack(bad.stderr)).toBe(true);
    const recvRule = await runCli('client', spoolArgs(w, ['-rule', 'nosuchrule']), w.env);
    expect(recvRule.code).toBe(2);
    expect(recvRule.stderr).toContain('rule nosuchrule is not known');
    mkdirSync(join(box.dir, 'watch'), { recursive: true });
    writeFileSync(w.stopFile, '');
    const stopped = await runCli('client', spoolArgs(w), w.env);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain('stop file present');
  }, 60_000);
});
