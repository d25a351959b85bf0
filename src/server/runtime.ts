/**
 * The composition root of a running server (design.md §1): built from a loaded server.xml, it
 * starts the pieces in the original's order (config.md §3.0) and stops them in reverse:
 *
 *   database (open, automatic upgrade)  ->  own identity check (partner table)  ->  [listeners...]
 *
 * The configuration and the cryptokey are loaded before the runtime exists (`loadServerConfig`),
 * so a bad file stops the start before anything is opened. Further components (the R66 listener,
 * HTTP, the transfer scheduler) are added with one line in `components.ts`.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/index.js';
import { openNoDatabaseStore, openStore, parseJdbcUrl, type Store } from '../store/index.js';
import type { Component } from './component.js';
import { extraComponents } from './components.js';
import { hostConfigFromSettings, mergeHostConfig } from './host-config.js';
import { Lifecycle } from './lifecycle.js';

/** A start-up failure the operator can fix (missing own partner entry, database not initialised). */
export class ServerStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerStartError';
  }
}

export class ServerRuntime {
  readonly lifecycle: Lifecycle;
  private currentStore: Store | undefined;
  private stopped: Promise<void> | undefined;

  constructor(
    readonly config: ServerConfig,
    readonly log: Logger,
  ) {
    this.lifecycle = new Lifecycle(log);
    this.lifecycle.add(this.databaseComponent());
    this.lifecycle.add(this.identityComponent());
    for (const component of extraComponents(this)) this.lifecycle.add(component);
  }

  get hostId(): string {
    return this.config.hostId;
  }

  /** The open store; only between start and stop. */
  get store(): Store {
    if (this.currentStore === undefined) throw new Error('the store is not open (server not started)');
    return this.currentStore;
  }

  /** Adds a component after the built-in ones; only before `start()`. */
  add(component: Component): this {
    this.lifecycle.add(component);
    return this;
  }

  /** Starts every component in order; on failure the started ones are stopped and it throws. */
  async start(): Promise<void> {
    for (const warning of this.config.warnings) this.log.warn({ file: this.config.file }, warning);
    await this.lifecycle.start();
  }

  /** Ordered stop in reverse; idempotent, never throws. */
  stop(): Promise<void> {
    this.stopped ??= this.lifecycle.stop();
    return this.stopped;
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
          // config.md §3.0 steps 10-11: partners from identity/authentfile, rules from <conf>.
          this.currentStore = await openNoDatabaseStore(this.config, { logger: (m) => this.log.warn(m) });
          return;
        }
        const store = await openStore(parseJdbcUrl(db.driver, db.server, db.user, db.password), {
          hostId: this.config.hostId,
          logger: (m) => this.log.warn(m),
        });
        try {
          if (!(await store.isInitialised())) {
            // The original only warns and goes on; the identity check below then says what to do.
            this.log.warn({ database: db.server }, 'database not initialised: run `svc-r66server initdb`');
          } else if (db.autoUpgrade) {
            await store.upgradeSchema(this.config.hostId);
          }
        } catch (err) {
          await store.close().catch(() => undefined);
          throw err;
        }
        this.currentStore = store;
      },
      describe: () => [this.config.db === null ? 'no database' : `database ${this.config.db.server}`],
      stop: async () => {
        const store = this.currentStore;
        this.currentStore = undefined;
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
