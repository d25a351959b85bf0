/** One watcher's settings (filewatcher.md §2): a `spooled` entry with the daemon's stop file and logWarn. */
import type { SpooledConfig, SpooledDaemonConfig } from '../config/index.js';

export interface WatcherConfig extends SpooledConfig {
  name: string;
  stopFile: string;
  logWarn: boolean;
}

/** Elapse as the original normalises it: < 100 → 1000, else rounded down to a multiple of 10. */
export function normaliseElapse(ms: number): number {
  return ms < 100 ? 1000 : Math.floor(ms / 10) * 10;
}

/** Default name of a watcher (command-line mode, and XML entries without one): `<hostId> : [<dirs>]`. */
export function defaultName(hostId: string, directories: readonly string[]): string {
  return `${hostId} : [${directories.join(', ')}]`;
}

/** The watchers of a `spooleddaemon` section. */
export function watchersOf(hostId: string, d: SpooledDaemonConfig): WatcherConfig[] {
  return d.spooled.map((s) => ({ ...s, name: s.name ?? defaultName(hostId, s.directories), stopFile: d.stopFile, logWarn: d.logWarn }));
}
