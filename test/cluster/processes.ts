/** Real svc processes for the multi-process cluster tests, started from dist/ (built by the global setup). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Child } from '../../bench/lib/child.js';
import type { Home } from '../../bench/svc/homes.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = { server: path.join(ROOT, 'bin/svc-r66server.js'), client: path.join(ROOT, 'bin/svc-r66client.js') };

function spawnSvc(side: 'server' | 'client', home: Home, args: string[]): Child {
  const env: NodeJS.ProcessEnv = { ...process.env, CONFDIR: home.confDir };
  for (const v of ['SVC_R66_HOME', 'INSTANCES_CONF', 'PIDFILE', 'SVC_SERVICE', 'SVC_R66_DAEMON']) delete env[v];
  return new Child(`svc-r66${side} ${args[0] ?? ''}`, process.execPath, [BIN[side], ...args], { env, cwd: home.confDir });
}

/** Runs a command to its end; throws with its output when it does not exit 0. */
export async function runSvc(side: 'server' | 'client', home: Home, args: string[]): Promise<void> {
  const child = spawnSvc(side, home, args);
  const { code } = await child.exited;
  if (code !== 0) throw new Error(`svc-r66${side} ${args.join(' ')} exited ${code}:\n${(child.stderr() + child.stdout()).slice(-2000)}`);
}

/** Starts `home`'s server and waits until it says it runs. */
export async function startSvcServer(home: Home): Promise<Child> {
  const server = spawnSvc('server', home, ['start']);
  try {
    await server.waitText('is running', 60_000);
  } catch (err) {
    await server.stop('SIGKILL');
    throw err;
  }
  return server;
}
