/**
 * What every network or database client command starts from (cli.md §3, config.md §4.1): the
 * loaded client.xml, the store (database or no-database files), the partner aliases and, on
 * demand, the connection pool. Also the common error handling: each command has its own exit
 * code for wrong arguments / configuration and for the unexpected (cli.md §3.2-§3.7, §5).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { EnvSettingError } from '../../config/env-flag.js';
import { ConfigError, loadClientConfig, type ClientConfig } from '../../config/index.js';
import type { Host } from '../../model/host.js';
import { openClientNetwork } from '../../net/network.js';
import type { NetContext } from '../../net/context.js';
import type { ConnectionPool } from '../../net/pool.js';
import { createClientLogger } from '../../server/logger.js';
import { taskLogger } from '../../server/task-registry.js';
import { openNoDatabaseStore, openStore, parseJdbcUrl, StoreError, type Store } from '../../store/index.js';
import { resolvingStoredPaths } from '../../operations/stored-paths.js';
import { hostTaskRegistry, runsTaskType, type TaskRegistry } from '../../tasks/index.js';
import { UsageError } from '../cli-error.js';
import { configFileOf, type Instance } from '../instance.js';
import type { Io } from '../io.js';

/** What the client commands receive from the dispatcher. */
export interface ClientCommandContext {
  instance: Instance;
  io: Io;
  /** Whether stdout is a terminal (progress bars). Default: process.stdout.isTTY. */
  isTty?: boolean;
}

/** A problem the user can fix (configuration, database, partner table): exit with the command's code. */
export class ClientSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientSetupError';
  }
}

/**
 * The configuration file and the remaining arguments. The wrappers insert CONFDIR/client.xml; the
 * original's raw entry points take it as first argument (`Message client.xml -to ...`), which we
 * accept too when the first word names an existing .xml file.
 */
export function configFileAndArgs(instance: Instance, args: readonly string[]): { configFile: string; args: string[] } {
  const first = args[0];
  if (first !== undefined && !first.startsWith('-') && first.toLowerCase().endsWith('.xml') && existsSync(first) && statSync(first).isFile()) {
    return { configFile: resolve(first), args: args.slice(1) };
  }
  return { configFile: configFileOf(instance, 'client'), args: [...args] };
}

export interface ClientSession {
  config: ClientConfig;
  store: Store;
  logger: Logger;
  /** The real partner id of `id` (aliases of config.md §3.11 resolved). */
  realHostId(id: string): string;
  /** The partner row, or undefined. */
  partner(id: string): Promise<Host | undefined>;
  /** This host's id towards `partner`: the TLS id when the partner is a TLS partner (database.md §6). */
  ownIdFor(partner: Host): string;
  /**
   * This host's task types: the built-ins and the extendTaskFactory plug-ins of client.xml (loaded
   * on first use). What its transfer engine runs and what its rule files (no-database mode) keep.
   */
  tasks(): Promise<TaskRegistry>;
  /** The connection pool (opened on first use). */
  pool(): Promise<ConnectionPool>;
  /** The network context and pool (opened on first use). */
  network(): Promise<{ ctx: NetContext; pool: ConnectionPool }>;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** `submit`: the reduced reading of asend/masend without -client (config.md §4.4). */
  mode?: 'full' | 'submit';
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function openClientStore(config: ClientConfig, logger: Logger, tasks: () => Promise<TaskRegistry>): Promise<Store> {
  const db = config.db;
  if (db === null) {
    const registry = await tasks();
    // The rule files keep the task types this client runs (its plug-ins included); others are skipped with a warning.
    // Its XML runner files, a Java client's included, are read like database rows (stored-paths.ts).
    return resolvingStoredPaths(await openNoDatabaseStore(config, { logger: (m) => logger.warn(m), acceptsTaskType: runsTaskType(registry) }), config.directories);
  }
  const store = await openStore(parseJdbcUrl(db.driver, db.server, db.user, db.password), { hostId: config.hostId, logger: (m) => logger.warn(m) });
  if (!(await store.isInitialised().catch(() => false))) {
    await store.close().catch(() => undefined);
    throw new ClientSetupError(`database ${db.server} is not initialised: run 'svc-r66client initdb' (or the server's) first`);
  }
  // Rows a Java host wrote name their files relative to serverhome (operations/stored-paths.ts).
  return resolvingStoredPaths(store, config.directories);
}

/** Loads client.xml, opens the store and checks this host is in the partner table (config.md §4.1 step 9). */
export async function openClientSession(configFile: string, opts: SessionOptions = {}): Promise<ClientSession> {
  let config: ClientConfig;
  try {
    config = await loadClientConfig(configFile, { mode: opts.mode ?? 'full' });
  } catch (err) {
    if (err instanceof ConfigError) throw new ClientSetupError(err.message);
    throw err;
  }
  // As logback-client.xml says, when there is one (docs/logging.md).
  const logger = await createClientLogger(config.file, config.directories.conf);
  let registry: Promise<TaskRegistry> | undefined;
  const tasks = (): Promise<TaskRegistry> => {
    registry ??= hostTaskRegistry(config.extendTaskFactories, config.directories.conf, taskLogger(logger));
    return registry;
  };
  let store: Store;
  try {
    store = await openClientStore(config, logger, tasks);
  } catch (err) {
    if (err instanceof StoreError || err instanceof ConfigError) throw new ClientSetupError(describe(err));
    throw err;
  }
  for (const own of [config.hostId, config.sslHostId]) {
    if (own !== undefined && (await store.hosts.get(own)) === undefined) {
      await store.close().catch(() => undefined);
      throw new ClientSetupError(`cannot find authentication for current host ${own} in the partner table (run 'svc-r66client loadauth FILE')`);
    }
  }
  const aliases = new Map<string, string>();
  for (const a of config.aliases) for (const alias of a.aliasIds) aliases.set(alias, a.realId);
  let network: Promise<{ ctx: NetContext; pool: ConnectionPool }> | undefined;
  const openNetwork = (): Promise<{ ctx: NetContext; pool: ConnectionPool }> => {
    network ??= openClientNetwork(config, { findHost: (id) => store.hosts.get(id), findRule: (id) => store.rules.get(id) }, { logger });
    return network;
  };
  const realHostId = (id: string): string => aliases.get(id) ?? id;
  return {
    config,
    store,
    logger,
    realHostId,
    partner: (id) => store.hosts.get(realHostId(id)),
    ownIdFor: (partner) => (partner.isSsl && config.sslHostId !== undefined ? config.sslHostId : config.hostId),
    tasks,
    pool: async () => (await openNetwork()).pool,
    network: openNetwork,
    close: async () => {
      if (network !== undefined) await (await network.catch(() => undefined))?.pool.close();
      await store.close();
    },
  };
}

/** Exit codes of one command for the situations every command shares. */
export interface CommandExits {
  /** Wrong arguments or configuration error. */
  badSetup: number;
  /** Anything nobody expected. */
  unexpected: number;
}

/**
 * Runs a command body: usage and setup errors print one line on stderr and exit with the command's
 * documented code; unexpected errors likewise with its "unexpected" code (never a stack trace).
 */
export async function guarded(io: Io, command: string, exits: CommandExits, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`svc-r66client ${command}: ${err.message}\nRun 'svc-r66client help' for the usage.\n`);
      return exits.badSetup;
    }
    if (err instanceof ClientSetupError || err instanceof EnvSettingError) {
      io.err(`svc-r66client ${command}: ${err.message}\n`);
      return exits.badSetup;
    }
    io.err(`svc-r66client ${command}: unexpected error: ${describe(err)}\n`);
    if (process.env.SVC_DEBUG === '1' && err instanceof Error && err.stack) io.err(`${err.stack}\n`);
    return exits.unexpected;
  }
}

/** Opens a session, runs `body`, closes the session whatever happens. */
export async function withSession<T>(configFile: string, opts: SessionOptions, body: (s: ClientSession) => Promise<T>): Promise<T> {
  const session = await openClientSession(configFile, opts);
  try {
    return await body(session);
  } finally {
    await session.close().catch(() => undefined);
  }
}
