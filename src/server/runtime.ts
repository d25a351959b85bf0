/**
 * The composition root of a running server (design.md §1): built from a loaded server.xml, it
 * starts the pieces in the original's order (config.md §3.0) and stops them in reverse:
 *
 *   database (open, automatic upgrade)  ->  own identity check (partner table)  ->  [listeners...]
 *
 * The configuration and the cryptokey are loaded before the runtime exists (`loadServerConfig`),
 * so a bad file stops the start before anything is opened. Further components (the R66 listener,
 * HTTP, the transfer scheduler) are added with one line in `components.ts`.
 *
 * `restart()` (REST v2 restart, R66 shutdown with restart) stops everything in order, reads the
 * configuration files again and starts a fresh set of components in the same process
 * (docs/decisions/0012-in-process-restart.md).
 */
import type { Logger } from 'pino';
import { loadServerConfig, type ServerConfig } from '../config/index.js';
import { onDatabaseFault, openNoDatabaseStore, openStore, parseJdbcUrl, type Store } from '../store/index.js';
import { resolvingStoredPaths } from '../operations/stored-paths.js';
import type { Component } from './component.js';
import { extraComponents } from './components.js';
import { NotificationHub } from '../monitor/snmp/hub.js';
import { hostConfigFromSettings, mergeHostConfig } from './host-config.js';
import { describe as describeError, Lifecycle } from './lifecycle.js';

/** A start-up failure the operator can fix (missing own partner entry, database not initialised). */
export class ServerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerStartError';
  }
}

export class ServerRuntime {
  private currentConfig: ServerConfig;
  private currentLifecycle: Lifecycle;
  /** Components added with `add()`: kept so that a restart puts them back. */
  private readonly added: Component[] = [];
  private currentStore: Store | undefined;
  /** Ends the database fault reports of the current store (databaseComponent()). */
  private stopFaultReports: (() => void) | undefined;
  private stopped: Promise<void> | undefined;
  private restarting: Promise<void> | undefined;
  private startCount = 0;
  private startedAtValue: Date | undefined;
  /** SNMP notifications of this server: the agent of each run attaches to it, the composition hands its `notify` down. */
  readonly notifications = new NotificationHub();

  constructor(
    config: ServerConfig,
    readonly log: Logger,
  ) {
    this.currentConfig = config;
    this.currentLifecycle = this.buildLifecycle();
  }

  /** The configuration in force (read again by each restart). */
  get config(): ServerConfig {
    return this.currentConfig;
  }

  /** The components of the current run (a restart builds a new set). */
  get lifecycle(): Lifecycle {
    return this.currentLifecycle;
  }

  get hostId(): string {
    return this.config.hostId;
  }

  /** When the current run started (a restart resets it); undefined before the first start. */
  get startedAt(): Date | undefined {
    return this.startedAtValue;
  }

  /** How many times the components were started in this process (1 + restarts). */
  get starts(): number {
    return this.startCount;
  }

  /** The open store; only between start and stop. */
  get store(): Store {
    if (this.currentStore === undefined) throw new Error('the store is not open (server not started)');
    return this.currentStore;
  }

  /** Adds a component after the built-in ones; only before `start()`. */
  add(component: Component): this {
    this.currentLifecycle.add(component);
    this.added.push(component);
    return this;
  }

  /** Starts every component in order; on failure the started ones are stopped and it throws. */
  async start(): Promise<void> {
    for (const warning of this.config.warnings) this.log.warn({ file: this.config.file }, warning);
    await this.currentLifecycle.start();
    this.startCount++;
    this.startedAtValue = new Date();
  }

  /** Ordered stop in reverse (after a restart in progress); idempotent, never throws. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await this.restarting?.catch(() => undefined);
      await this.currentLifecycle.stop();
    })();
    return this.stopped;
  }

  /**
   * Stops every component in order (running transfers end with Shutdown and resume from their
   * saved rank at the next start), reads server.xml again and starts a new set of components.
   * A configuration that no longer loads is reported and the previous one is kept, so a typo
   * does not take the server down. Rejects when the new start fails (nothing runs then: the
   * caller ends the process). Concurrent calls share one restart; after `stop()` it rejects.
   */
  restart(): Promise<void> {
    if (this.stopped !== undefined) return Promise.reject(new Error('the server is stopping'));
    this.restarting ??= this.restartOnce().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  /**
   * A shutdown asked by an operator (REST, R66 order): without restart, the process's own
   * shutdown handlers run the ordered stop (shutdown.ts); with restart, `restart()`, and when the
   * new start fails nothing runs any more, so the process ends the same way.
   */
  requestShutdown(restart: boolean): void {
    if (!restart) {
      process.kill(process.pid, 'SIGTERM');
      return;
    }
    this.restart().catch((err: unknown) => {
      this.log.error({ err: describeError(err) }, 'server restart failed; the process stops');
      process.kill(process.pid, 'SIGTERM');
    });
  }

  private async restartOnce(): Promise<void> {
    this.log.warn({ hostid: this.hostId }, 'server restart: stopping');
    await this.currentLifecycle.stop();
    try {
      this.currentConfig = await loadServerConfig(this.currentConfig.file);
    } catch (err) {
      this.log.error({ file: this.currentConfig.file, err: describeError(err) }, 'server restart: the configuration cannot be read again; the previous one is kept');
    }
    this.currentLifecycle = this.buildLifecycle();
    for (const component of this.added) this.currentLifecycle.add(component);
    // A stop() that arrived during the restart wins: nothing is started again.
    if (this.stopped !== undefined) return;
    await this.start();
    this.log.warn({ hostid: this.hostId, starts: this.startCount }, 'server restarted');
  }

  /**
   * The built-in components for the current configuration; components.ts adds the others and
   * composes the R66 handler table (composeR66Handlers).
   */
  private buildLifecycle(): Lifecycle {
    const lifecycle = new Lifecycle(this.log);
    lifecycle.add(this.databaseComponent());
    lifecycle.add(this.identityComponent());
    for (const component of extraComponents(this)) lifecycle.add(component);
    return lifecycle;
  }

  /** How long a graceful stop may take (the original's shutdown hook uses `limit/timeoutcon`). */
  get shutdownTimeoutMs(): number {
    return Math.max(this.config.limits.timeoutCon, 5_000);
  }

  /** Lines describing what this server offers (each started component says what it listens on). */
  describe(): string[] {
    return this.lifecycle.describeStarted();
  }

  private databaseComponent(): Component {
    return {
      name: 'database',
      start: async () => {
        const db = this.config.db;
        if (db === null) {
          // config.md §3.0 steps 10-11: partners from identity/authentfile, rules from <conf>. Every
          // task type is kept: the task plug-ins are not loaded yet, ServerTasks checks them (task-registry.ts).
          // A Java host's XML runner files name their files relative to serverhome too (stored-paths.ts).
          this.currentStore = resolvingStoredPaths(await openNoDatabaseStore(this.config, { logger: (m) => this.log.warn(m), acceptsTaskType: () => true }), this.config.directories);
          return;
        }
        const settings = parseJdbcUrl(db.driver, db.server, db.user, db.password);
        const store = await openStore(settings, { hostId: this.config.hostId, logger: (m) => this.log.warn(m) });
        try {
          if (!(await store.isInitialised())) {
            // The original warns, goes on and fails on its own partner entry; say what to do instead.
            throw new ServerStartError(
              `database ${settings.displayUrl} is not initialised (its tables do not exist): run svc-r66server initdb -auth FILE -dir DIR (or initdb, then loadconf)`,
            );
          } else if (db.autoUpgrade) {
            await store.upgradeSchema(this.config.hostId);
          }
        } catch (err) {
          await store.close().catch(() => undefined);
          throw err;
        }
        // Rows a Java host wrote name their files relative to serverhome (operations/stored-paths.ts).
        this.currentStore = resolvingStoredPaths(store, this.config.directories);
        // A database file changed under the server or unwritable (sqlite-guard.ts): said once; every
        // later query fails with the same message (which says until when), so transfers and requests
        // are refused while the server stays up.
        this.stopFaultReports = onDatabaseFault((err) => this.log.error({ err: err.message }, 'database unusable: new transfers and requests are refused'));
      },
      describe: () => [this.config.db === null ? 'no database' : `database ${this.config.db.server}`],
      stop: async () => {
        const store = this.currentStore;
        this.currentStore = undefined;
        this.stopFaultReports?.();
        await store?.close();
      },
    };
  }

  /**
   * config.md §3.0 steps 12-13: the own host ids must be in the partner table, then the business,
   * roles and aliases lists of server.xml that are non-empty are written to the own HOSTCONFIG row.
   */
  private identityComponent(): Component {
    return {
      name: 'identity',
      start: async () => {
        const { config } = this;
        const ids = [config.server.useNoSsl ? config.hostId : undefined, config.server.useSsl ? config.sslHostId : undefined];
        for (const id of ids) {
          if (id === undefined) continue;
          if ((await this.store.hosts.get(id)) === undefined) {
            throw new ServerStartError(
              `cannot find authentication for current host ${id}: add an entry for it to the partner file and load it (svc-r66server loadauth FILE, or initdb)`,
            );
          }
        }
        if (config.db === null) return;
        const texts = hostConfigFromSettings(config);
        if (Object.keys(texts).length > 0) {
          await this.store.hostConfigs.upsert(mergeHostConfig(await this.store.hostConfigs.get(config.hostId), texts, config.hostId));
        }
      },
      stop: async () => undefined,
    };
  }
}
