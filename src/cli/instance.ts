/**
 * Which instance (configuration directory) a command works on (cli.md §1.1, §1.2), plus our
 * embedded per-user home for machines without any installed instance.
 *
 * Order, first match wins:
 * 1. `-home DIR` / `--home DIR` on the command line (embedded home at DIR);
 * 2. `CONFDIR` (must hold server.xml / client.xml, else "instance does not exist", exit 2);
 * 3. `SVC_R66_HOME` (embedded home);
 * 4. the configuration root (`INSTANCES_CONF`, default `/etc/svc/conf.d`): the first argument if it
 *    names an instance there (it is then removed), else the first instance in name order;
 * 5. the default embedded home `~/.svc-r66`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { CliError, UsageError } from './cli-error.js';
import { EXIT_NO_INSTANCE } from './exit-codes.js';

export type Side = 'server' | 'client';

export const DEFAULT_CONFIG_ROOT = '/etc/svc/conf.d';
export const DEFAULT_HOME_NAME = '.svc-r66';
/** Where packaged instances keep their data (and the server's PID file). */
export const DEFAULT_DATA_ROOT = '/var/lib/svc';


export interface Instance {
  /** The instance configuration directory (CONFDIR). */
  confDir: string;
  /** Instance name: the directory name (the HOSTID of packaged installations). */
  name: string;
  /** True when this is our embedded home, which `start` creates when it is missing. */
  embedded: boolean;
  /** How it was chosen, for messages. */
  source: '-home' | 'CONFDIR' | 'SVC_R66_HOME' | 'configuration root' | 'default home';
}

export interface Selection {
  instance: Instance;
  /** The arguments left once the instance argument and `-home DIR` are removed. */
  args: string[];
}

export function configFileName(side: Side): string {
  return side === 'server' ? 'server.xml' : 'client.xml';
}

export function configFileOf(instance: Instance, side: Side): string {
  return join(instance.confDir, configFileName(side));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Removes `-home DIR` / `--home DIR` (before any `--`) and returns its value. */
function extractHome(args: string[]): { home: string | undefined; args: string[] } {
  const out: string[] = [];
  let home: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') {
      out.push(...args.slice(i));
      break;
    }
    if (a.toLowerCase() === '-home' || a.toLowerCase() === '--home') {
      const v = args[i + 1];
      if (v === undefined || v === '') throw new UsageError(`option ${a} expects a value (DIR: the svc-r66 home directory)`);
      home = v;
      i++;
      continue;
    }
    out.push(a);
  }
  return { home, args: out };
}

function listInstances(root: string, side: Side): string[] {
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  return names.filter((n) => isFile(join(root, n, configFileName(side))));
}

function embedded(dir: string, source: Instance['source']): Instance {
  const confDir = resolve(dir);
  return { confDir, name: basename(confDir), embedded: true, source };
}

/** Picks the instance for `argv` (the arguments after the program name). */
export function selectInstance(argv: readonly string[], side: Side, env: NodeJS.ProcessEnv = process.env): Selection {
  const { home, args } = extractHome([...argv]);
  if (home !== undefined) return { instance: embedded(home, '-home'), args };

  const confDirEnv = env.CONFDIR;
  if (confDirEnv) {
    const confDir = resolve(confDirEnv);
    if (!isFile(join(confDir, configFileName(side)))) {
      throw new CliError(`instance ${confDir} (environment variable CONFDIR) does not exist: ${join(confDir, configFileName(side))} not found`, EXIT_NO_INSTANCE);
    }
    return { instance: { confDir, name: basename(confDir), embedded: false, source: 'CONFDIR' }, args };
  }
  if (env.SVC_R66_HOME) return { instance: embedded(env.SVC_R66_HOME, 'SVC_R66_HOME'), args };

  const root = resolve(env.INSTANCES_CONF || DEFAULT_CONFIG_ROOT);
  const first = args[0];
  if (first !== undefined && !first.startsWith('-') && !first.includes('/') && isFile(join(root, first, configFileName(side)))) {
    return { instance: { confDir: join(root, first), name: first, embedded: false, source: 'configuration root' }, args: args.slice(1) };
  }
  const found = listInstances(root, side)[0];
  if (found !== undefined) {
    return { instance: { confDir: join(root, found), name: found, embedded: false, source: 'configuration root' }, args };
  }
  return { instance: embedded(join(env.HOME || homedir(), DEFAULT_HOME_NAME), 'default home'), args };
}

/**
 * PID file of the server (cli.md §1.2): `PIDFILE` if set, else `/var/lib/svc/<HOSTID>/r66server.pid`
 * when that directory exists (packaged layout), else `r66server.pid` in the instance directory.
 */
export function serverPidFile(instance: Instance, env: NodeJS.ProcessEnv = process.env): string {
  if (env.PIDFILE) return resolve(env.PIDFILE);
  if (!instance.embedded) {
    const dataDir = join(DEFAULT_DATA_ROOT, instance.name);
    if (existsSync(dataDir)) return join(dataDir, 'r66server.pid');
  }
  return join(instance.confDir, 'r66server.pid');
}
