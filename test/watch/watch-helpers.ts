// A FileWatcher set-up with real processes: hostb a running svc-r66server (the partner), hosta's
// client.xml beside its server files (same SQLite database), a spool directory, and the watcher
// started as `svc-r66client spool` with the command-line options of one watcher.
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnCli, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';
import { SEND_RULE, startNode, writeNodePair, type Node } from '../transfer/servers.js';

export interface WatchSetup {
  clientXml: string;
  spool: string;
  statusFile: string;
  stopFile: string;
  env: NodeJS.ProcessEnv;
}

/** hosta's client.xml (its database, its directories) and the watcher's files. */
export function writeClientSide(box: Sandbox, a: Node, extraXml = ''): WatchSetup {
  const clientXml = join(a.confDir, 'client.xml');
  writeFileSync(clientXml, `<?xml version="1.0" encoding="UTF-8"?>
<config>
  <identity><hostid>${a.id}</hostid><cryptokey>${join(a.confDir, 'cryptokey.des')}</cryptokey></identity>
  <client/>
  <directory><serverhome>${a.home}</serverhome><in>in</in><out>out</out><arch>arch</arch><work>work</work><conf>conf</conf></directory>
  <limit><timeoutcon>10000</timeoutcon><delayretry>500</delayretry><blocksize>65536</blocksize></limit>
  <db><dbdriver>sqlite</dbdriver><dbserver>jdbc:sqlite:${a.db}</dbserver><dbuser>svc</dbuser><dbpasswd>pw</dbpasswd></db>
  ${extraXml}
</config>
`);
  const spool = join(box.dir, 'spool');
  mkdirSync(spool, { recursive: true });
  return { clientXml, spool, statusFile: join(box.dir, 'watch', 'status.json'), stopFile: join(box.dir, 'watch', 'stop'), env: { ...a.env, SVC_LOG_LEVEL: 'info' } };
}

/** hosta and hostb with the send rule, hostb running, hosta's client side written: a watcher test's start. */
export async function watchPairRunning(box: Sandbox): Promise<{ a: Node; b: Node; w: WatchSetup }> {
  const { a, b } = await writeNodePair(box, { rules: SEND_RULE }, { rules: SEND_RULE });
  await startNode(b);
  return { a, b, w: writeClientSide(box, a) };
}

export function spoolArgs(w: WatchSetup, extra: string[] = []): string[] {
  return ['spool', w.clientXml, '-to', 'hostb', '-rule', 'send', '-directory', w.spool, '-statusfile', w.statusFile, '-stopfile', w.stopFile, '-elapse', '100', ...extra];
}

export async function startWatcher(w: WatchSetup, extra: string[] = []): Promise<Running> {
  const proc = spawnCli('client', spoolArgs(w, extra), w.env);
  await waitFor(() => proc.stderr().includes('"msg":"watcher started"') || proc.child.exitCode !== null, { what: 'watcher started', timeoutMs: 20_000 });
  if (proc.child.exitCode !== null) throw new Error(`the watcher did not start: ${proc.stdout()}\n${proc.stderr()}`);
  return proc;
}

/** Files received by hostb (its in directory). */
export function received(b: Node): string[] {
  return readdirSync(join(b.home, 'in')).filter((f) => !f.startsWith('.'));
}

/** Waits for `n` scans of the watcher: its lock file's heartbeat (`<statusfile>.chk`) is touched once per scan. */
export async function waitScans(w: WatchSetup, n: number): Promise<void> {
  let beats = 0;
  let last = 0;
  await waitFor(() => {
    const m = statSync(`${w.statusFile}.chk`, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (m !== last) {
      last = m;
      beats++;
    }
    return beats >= n;
  }, { what: `${n} scans`, timeoutMs: 60_000, intervalMs: 5 });
}
