/**
 * Several watchers in one process (filewatcher.md §1): each runs its own loop; native file-system
 * events (chokidar) wake a watcher's next scan early, polling stays the rule (network file systems
 * send no events). The process ends when every watcher has stopped.
 */
import { watch as watchFs, type FSWatcher } from 'chokidar';
import type { Logger } from 'pino';
import type { WatcherConfig } from './config.js';
import { LockedError } from './lock.js';
import { FileWatcher, type WatcherDeps } from './watcher.js';

export interface DaemonDeps {
  logger: Logger;
  orders: WatcherDeps['orders'];
  inform?: WatcherDeps['inform'];
  /** Checks the rule of a watcher (exists, send direction); throws an Error naming the problem. */
  checkRule(rule: string): Promise<void>;
  /** false: no file-system events (polling only). Default true. */
  events?: boolean;
  onScanned?(w: FileWatcher): void;
}

export interface DaemonOutcome {
  /** Watchers that could not start, with the reason. */
  refused: Array<{ name: string; reason: string }>;
  ran: number;
}

export class WatchDaemon {
  readonly watchers: FileWatcher[];
  private stopped = false;

  constructor(configs: readonly WatcherConfig[], private readonly deps: DaemonDeps) {
    this.watchers = configs.map((c) => new FileWatcher(c, {
      orders: deps.orders, logger: deps.logger, ...(deps.inform ? { inform: deps.inform } : {}),
      onScanned: () => deps.onScanned?.(this.watchers.find((w) => w.config === c) as FileWatcher),
    }));
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.stop();
  }

  /** Runs every watcher to its end; a watcher that cannot start is logged and the others go on. */
  async run(): Promise<DaemonOutcome> {
    const refused: DaemonOutcome['refused'] = [];
    let ran = 0;
    await Promise.all(this.watchers.map(async (w) => {
      const name = w.config.name;
      try {
        w.checkSetup();
        await this.deps.checkRule(w.config.rule);
      } catch (err) {
        refused.push({ name, reason: (err as Error).message });
        this.deps.logger.error({ watcher: name, err: (err as Error).message }, 'watcher not started');
        return;
      }
      if (w.stopFileExists) {
        this.deps.logger.warn({ watcher: name, stopFile: w.config.stopFile }, 'stop file present: watcher not started');
        return;
      }
      if (this.stopped) return;
      const events = this.deps.events === false ? null : this.events(w);
      ran++;
      try {
        await w.run();
      } catch (err) {
        const reason = err instanceof LockedError ? err.message : `stopped on an unexpected error: ${(err as Error).message}`;
        refused.push({ name, reason });
        this.deps.logger.error({ watcher: name, err: reason }, 'watcher stopped');
      } finally {
        await events?.close().catch(() => undefined);
      }
    }));
    return { refused, ran };
  }

  private events(w: FileWatcher): FSWatcher | null {
    try {
      const fsw = watchFs([...w.config.directories], {
        ignoreInitial: true, persistent: false, depth: w.config.recursive ? undefined : 0, usePolling: false,
      });
      fsw.on('add', () => w.wake()).on('change', () => w.wake()).on('error', () => undefined);
      return fsw;
    } catch {
      return null; // events are only a hint: polling goes on
    }
  }
}
