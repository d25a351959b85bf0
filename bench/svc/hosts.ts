/**
 * The svc processes of the benchmark, run exactly as a user runs them: `bin/svc-r66server.js start`
 * for each host and `bin/svc-r66client.js` commands, selected with CONFDIR (cli.md §1.1).
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Child } from '../lib/child.js';
import type { Home } from './homes.js';

/** The repository root: dist/bench/svc -> ../../.. */
export const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const BIN = { server: join(ROOT, 'bin/svc-r66server.js'), client: join(ROOT, 'bin/svc-r66client.js') };
const START_TIMEOUT_MS = 60_000;

/**
 * Extra node flags of the svc processes of a home started from now on (--cpu-prof for --profile),
 * by home: with --compare-monitoring two pairs of hosts write their profiles in separate folders.
 */
const nodeFlags = new WeakMap<Home, string[]>();

export function setSvcNodeFlags(home: Home, flags: string[]): void {
  nodeFlags.set(home, flags);
}

function envFor(home: Home): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CONFDIR: home.confDir };
  // Nothing from the caller's environment may choose another instance.
  for (const v of ['SVC_R66_HOME', 'INSTANCES_CONF', 'PIDFILE', 'SVC_SERVICE', 'SVC_R66_DAEMON']) delete env[v];
  return env;
}

export function spawnCli(side: 'server' | 'client', home: Home, args: string[], name: string): Child {
  return new Child(name, process.execPath, [...(nodeFlags.get(home) ?? []), BIN[side], ...args], { env: envFor(home), cwd: home.confDir });
}

/** Runs a command to its end; throws with its output when it does not exit 0. */
export async function runCli(side: 'server' | 'client', home: Home, args: string[]): Promise<Child> {
  const child = spawnCli(side, home, args, `svc-r66${side} ${args[0] ?? ''}`);
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`svc-r66${side} ${args.join(' ')} exited ${code}:\n${(child.stderr() + child.stdout()).slice(-2000)}`);
  return child;
}

/** Starts the server of `home` in the foreground and waits until both R66 listeners are up. */
export async function startServer(home: Home): Promise<Child> {
  const server = spawnCli('server', home, ['start'], `svc server ${home.id}`);
  try {
    await server.waitText(`R66 plain listening on port ${home.ports.port}`, START_TIMEOUT_MS);
    await server.waitText(`R66 TLS listening on port ${home.ports.sslPort}`, START_TIMEOUT_MS);
    await server.waitText('is running', START_TIMEOUT_MS);
  } catch (err) {
    await server.stop('SIGKILL');
    throw err;
  }
  return server;
}

/** The JSON result lines a client command prints (one per result block, in order). */
export function jsonResults(stdout: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      /* a log line that is not a result */
    }
  }
  return out;
}
