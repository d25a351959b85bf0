// Two real hosts for the client commands: `hostb`, a running svc-r66server on a loopback port, and
// `hosta`, the client's instance (client.xml + SQLite database) that knows hostb at that port.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadServerConfig } from '../../src/config/index.js';
import { R66Network } from '../../src/net/network.js';
import { silentLogger } from '../../src/server/logger.js';
import { openStore, parseJdbcUrl } from '../../src/store/index.js';
import { createTaskRegistry } from '../../src/tasks/index.js';
import { engineWithOrders } from '../../src/operations/index.js';
import { waitFor } from '../helpers/wait.js';
import { PASSWORD_HEX, runCli, sandbox, spawnCli, writeInstance, type CliResult, type Instance, type Running, type Sandbox } from './cli-helpers.js';

export interface Pair {
  box: Sandbox;
  /** The client's instance (hosta). */
  a: Instance;
  /** The server's instance (hostb). */
  b: Instance;
  bPort: number;
  /** The svc-r66server process, or undefined when hostb runs in the test process. */
  server: Running | undefined;
  /** Environment selecting hosta for svc-r66client. */
  env: NodeJS.ProcessEnv;
  client(args: string[], extraEnv?: NodeJS.ProcessEnv): Promise<CliResult>;
  stop(): Promise<void>;
}

function entry(hostId: string, port: number, extra = ''): string {
  return `<entry><hostid>${hostId}</hostid><address>127.0.0.1</address><port>${port}</port><key>${PASSWORD_HEX}</key>${extra}</entry>`;
}

/** Rules both hosts load: `send` (requester sends), `recv` (requester receives). */
function writeRules(confDir: string): void {
  writeFileSync(join(confDir, 'send.rule.xml'), '<rule><idrule>send</idrule><hostids/><mode>1</mode></rule>\n');
  writeFileSync(join(confDir, 'site.rules.xml'), '<rules><rule><idrule>recv</idrule><hostids/><mode>2</mode></rule></rules>\n');
}

/** Reads the plain port the server prints when it listens. */
function listeningPort(server: Running): number | undefined {
  const m = /R66 plain listening on port (\d+)/.exec(server.stdout());
  return m ? Number(m[1]) : undefined;
}

/**
 * hostb inside the test process: its R66 network and a transfer engine on its own database, as
 * the server composes them; used until svc-r66server itself runs the engine.
 */
async function inProcessHost(b: Instance): Promise<{ port: number; stop(): Promise<void> }> {
  const config = await loadServerConfig(join(b.confDir, 'server.xml'));
  const db = config.db!;
  const store = await openStore(parseJdbcUrl(db.driver, db.server, db.user, db.password), { hostId: config.hostId });
  const logger = silentLogger();
  const network = new R66Network(config, () => ({ findHost: (id) => store.hosts.get(id), findRule: (id) => store.rules.get(id) }), logger);
  await network.start();
  const engine = engineWithOrders({
    identity: network.ctx.identity, directories: config.directories, limits: config.limits, store, pool: network.pool,
    handlers: network.handlers, tasks: createTaskRegistry(), logger,
  });
  return {
    port: network.ports[0] as number,
    stop: async () => {
      await engine.close();
      await network.stop();
      await store.close();
    },
  };
}

export async function startPair(opts: { hostbInProcess?: boolean } = {}): Promise<Pair> {
  const box = sandbox();
  const b = writeInstance(join(box.dir, 'conf', 'hostb'), { hostId: 'hostb' });
  writeRules(b.confDir);
  writeFileSync(join(b.confDir, 'authent.xml'), `<authent>${entry('hostb', 6666, '<admin>true</admin>')}${entry('hosta', 6667)}</authent>\n`);
  mkdirSync(join(b.serverHome, 'out'), { recursive: true });
  const bEnv = { ...box.env, CONFDIR: b.confDir };
  expect((await runCli('server', ['initdb', '-auth', join(b.confDir, 'authent.xml'), '-dir', b.confDir], bEnv)).code).toBe(0);
  let server: Running | undefined;
  let local: Awaited<ReturnType<typeof inProcessHost>> | undefined;
  let bPort: number;
  if (opts.hostbInProcess) {
    local = await inProcessHost(b);
    bPort = local.port;
  } else {
    const spawned = spawnCli('server', ['start'], bEnv);
    server = spawned;
    try {
      bPort = await waitFor(() => listeningPort(spawned), { what: 'hostb listening', timeoutMs: 20_000 });
    } catch (err) {
      spawned.child.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\nstdout: ${spawned.stdout()}\nstderr: ${spawned.stderr()}`);
    }
  }

  const a = writeInstance(join(box.dir, 'conf', 'hosta'), { hostId: 'hosta' });
  writeRules(a.confDir);
  writeFileSync(join(a.confDir, 'authent.xml'), `<authent>${entry('hosta', 6667, '<admin>true</admin>')}${entry('hostb', bPort)}${entry('hostc', 1)}</authent>\n`);
  mkdirSync(join(a.serverHome, 'out'), { recursive: true });
  const env = { ...box.env, CONFDIR: a.confDir };
  expect((await runCli('client', ['initdb', '-auth', join(a.confDir, 'authent.xml'), '-dir', a.confDir], env)).code).toBe(0);

  return {
    box, a, b, bPort, server, env,
    client: (args, extraEnv = {}) => runCli('client', args, { ...env, ...extraEnv }),
    stop: async () => {
      await local?.stop();
      if (server !== undefined && server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      box.cleanup();
    },
  };
}

/** Files to put in each host's out directory before the tests: name -> content. */
export interface OutFiles {
  a?: Record<string, string>;
  b?: Record<string, string>;
}

/**
 * The pair of a whole test file (call at its top level): started, with `files` in the out
 * directories, before the file's first test and stopped after its last. The returned object is
 * filled in once the pair has started.
 */
export function pairForFile(files: OutFiles = {}): Pair {
  const pair = {} as Pair;
  let started: Pair | undefined;
  beforeAll(async () => {
    started = await startPair();
    Object.assign(pair, started);
    for (const [inst, byName] of [[started.a, files.a], [started.b, files.b]] as const) {
      for (const [name, text] of Object.entries(byName ?? {})) writeFileSync(join(inst.serverHome, 'out', name), text);
    }
  }, 60_000);
  afterAll(async () => {
    await started?.stop();
  });
  return pair;
}

/** The JSON result line (second line of the output) of a client command. */
export function jsonResult(stdout: string, index = 0): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l.startsWith('{'));
  const line = lines[index];
  if (line === undefined) throw new Error(`no JSON result #${index} in:\n${stdout}`);
  return JSON.parse(line) as Record<string, unknown>;
}
