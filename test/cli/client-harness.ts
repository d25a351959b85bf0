// Two real hosts for the client commands: `hostb`, a running svc-r66server on a loopback port, and
// `hosta`, the client's instance (client.xml + SQLite database) that knows hostb at that port.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { PASSWORD_HEX, runCli, sandbox, spawnCli, writeInstance, type CliResult, type Instance, type Running, type Sandbox } from './cli-helpers.js';

export interface Pair {
  box: Sandbox;
  /** The client's instance (hosta). */
  a: Instance;
  /** The server's instance (hostb). */
  b: Instance;
  bPort: number;
  server: Running;
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

export async function startPair(): Promise<Pair> {
  const box = sandbox();
  const b = writeInstance(join(box.dir, 'conf', 'hostb'), { hostId: 'hostb' });
  writeRules(b.confDir);
  writeFileSync(join(b.confDir, 'authent.xml'), `<authent>${entry('hostb', 6666, '<admin>true</admin>')}${entry('hosta', 6667)}</authent>\n`);
  mkdirSync(join(b.serverHome, 'out'), { recursive: true });
  const bEnv = { ...box.env, CONFDIR: b.confDir };
  expect((await runCli('server', ['initdb', '-auth', join(b.confDir, 'authent.xml'), '-dir', b.confDir], bEnv)).code).toBe(0);
  const server = spawnCli('server', ['start'], bEnv);
  let bPort: number;
  try {
    bPort = await waitFor(() => listeningPort(server), { what: 'hostb listening', timeoutMs: 20_000 });
  } catch (err) {
    server.child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}\nstdout: ${server.stdout()}\nstderr: ${server.stderr()}`);
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
      if (server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      box.cleanup();
    },
  };
}

/** The JSON result line (second line of the output) of a client command. */
export function jsonResult(stdout: string, index = 0): Record<string, unknown> {
  const lines = stdout.split('\n').filter((l) => l.startsWith('{'));
  const line = lines[index];
  if (line === undefined) throw new Error(`no JSON result #${index} in:\n${stdout}`);
  return JSON.parse(line) as Record<string, unknown>;
}
