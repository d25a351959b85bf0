// The FileWatcher's reports and its bad input, between real processes: hostb a server with REST
// (GET /v2/filemonitors) that allows hosta's business requests, the watcher a real
// `svc-r66client spool` in direct mode.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasNoStack, sandbox, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { killNodes, rest, SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';
import { received, startWatcher, writeClientSide, type WatchSetup } from './watch-helpers.js';

interface Listing {
  results: Array<{ NAME: string; HOST: string; DIRECTORIES: string; FILES: Array<{ FILE: string; USED: boolean; ID: string; HASH: string | null }>; GLOBALOK: number }>;
  totalResults: number;
  totalSubResults: number;
}

describe('FileWatcher reports and bad input (real processes)', () => {
  let box: Sandbox;
  let a: Node;
  let b: Node;
  let w: WatchSetup;
  let watcher: Running | undefined;

  beforeEach(async () => {
    box = sandbox();
    ({ a, b } = await writeNodePair(box, { rules: SEND_RULE }, { rules: SEND_RULE, rest: true, business: ['hosta'] }));
    w = writeClientSide(box, a);
  }, 60_000);

  afterEach(() => {
    if (watcher && watcher.child.exitCode === null) watcher.child.kill('SIGKILL');
    killNodes(a, b);
    box.cleanup();
  });

  it('reports to the server, which lists the latest state in GET /v2/filemonitors with its filters', async () => {
    await startNode(b);
    watcher = await startWatcher(w, ['-direct', '-name', 'inv,B', '-waarp', 'hostb', '-elapseWaarp', '0']);
    for (let i = 0; i < 3; i++) writeFileSync(join(w.spool, `r${i}.txt`), `report ${i}`);
    const listing = await waitFor(async () => {
      const r = await rest(b, 'GET', '/v2/filemonitors');
      const l = r.json as unknown as Listing;
      return l.results?.[0]?.FILES?.length === 3 && l.results[0].FILES.every((f) => f.USED) ? l : undefined;
    }, { what: 'three used files listed', timeoutMs: 30_000 });
    const m = listing.results[0]!;
    expect(m).toMatchObject({ NAME: 'inv B', HOST: 'hosta', DIRECTORIES: `${w.spool}(1) `, GLOBALOK: 3 });
    expect(m.FILES.map((f) => f.FILE).sort()).toEqual(['(1)/r0.txt', '(1)/r1.txt', '(1)/r2.txt']);
    expect(m.FILES[0]!.ID).toMatch(/^-?\d+$/);
    expect(m.FILES[0]!.HASH).toMatch(/^[0-9a-f]{32}$/);
    expect(listing.totalSubResults).toBe(3);
    // A removed file leaves the listing (delta report with removedFileItems).
    rmSync(join(w.spool, 'r1.txt'));
    await waitFor(async () => ((await rest(b, 'GET', '/v2/filemonitors')).json as unknown as Listing).totalSubResults === 2, { what: 'removal reported', timeoutMs: 30_000 });
    expect((await rest(b, 'GET', '/v2/filemonitors?countOrder=true')).json).toEqual({ totalResults: 1, totalSubResults: 2 });
    expect(((await rest(b, 'GET', '/v2/filemonitors?name=nobody')).json as unknown as Listing).results).toEqual([]);
    expect(((await rest(b, 'GET', '/v2/filemonitors?status=1')).json as unknown as Listing).totalResults).toBe(1);
    expect(((await rest(b, 'GET', '/v2/filemonitors?status=-1')).json as unknown as Listing).totalResults).toBe(0);
    expect((await rest(b, 'GET', '/v2/filemonitors?status=x')).status).toBe(400);
    writeFileSync(w.stopFile, '');
    expect((await watcher.exited).code).toBe(0);
    expect(existsSync(`${w.statusFile}.chk`)).toBe(false);
  }, 120_000);

  it('survives a malformed state file, a partner down, a file deleted after a failed send and a directory gone', async () => {
    mkdirSync(dirname(w.statusFile), { recursive: true });
    writeFileSync(w.statusFile, '{"broken": [');
    const spool2 = join(box.dir, 'spool2');
    mkdirSync(spool2);
    watcher = await startWatcher(w, ['-direct', '-directory', `${w.spool},${spool2}`]);
    for (let i = 0; i < 5; i++) writeFileSync(join(w.spool, `k${i}.txt`), `kept ${i}`);
    writeFileSync(join(spool2, 'gone.txt'), 'its directory vanishes before it could be sent');
    writeFileSync(join(w.spool, 'x.txt'), 'deleted before it could be sent');
    // hostb is not running: every order fails and is retried.
    await waitFor(() => (watcher!.stderr().match(/"msg":"transfer failed, retried later"/g)?.length ?? 0) >= 7, { what: 'failed sends', timeoutMs: 30_000 });
    rmSync(join(w.spool, 'x.txt'));
    rmSync(spool2, { recursive: true });
    await waitFor(() => watcher!.stderr().includes('"msg":"directory cannot be scanned; its files are kept as they were"'), { what: 'directory problem logged', timeoutMs: 10_000 });
    await startNode(b);
    await waitFor(() => received(b).length >= 5, { what: 'files received once hostb is up', timeoutMs: 30_000 });
    const err = watcher.stderr();
    expect(err).toContain('is not valid JSON of a FileWatcher');
    expect(readdirSync(dirname(w.statusFile)).some((f) => f.startsWith('status.json.bad-'))).toBe(true);
    expect(hasNoStack(err)).toBe(true);
    expect(err).toMatch(/"file":"[^"]*\/x\.txt","msg":"file removed"/);
    // spool2's file was never sent: its directory vanished; it stays in the state until the directory is back.
    writeFileSync(w.stopFile, '');
    expect((await watcher.exited).code).toBe(0);
    // The receiver prefixes the names with the transfer ids.
    expect(received(b).map((n) => n.replace(/^(-?\d+_)+/, '')).sort()).toEqual(['k0.txt', 'k1.txt', 'k2.txt', 'k3.txt', 'k4.txt']);
  }, 120_000);
});
