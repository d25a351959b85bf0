/**
 * The FileWatcher reports' freshness and the REST listing's filters (filewatcher.md §5.2, §6), over
 * the report type REST serves (context.ts). Here rather than in src/server so that src/http never
 * imports src/server: the server composes REST, never the other way (test/layering).
 */
import type { FileMonitorReport } from './context.js';

/** Freshness of a report (§5.2; T = the server's timeoutcon): the colour of the web pages' date. */
export function freshness(lastUpdate: number, now: number, timeoutConMs: number): 'green' | 'orange' | 'red' {
  if (now <= lastUpdate + timeoutConMs) return 'green';
  return now <= lastUpdate + 2 * timeoutConMs ? 'orange' : 'red';
}

/** "OK/active": reported within twice the connection timeout. */
export function isActive(lastUpdate: number, now: number, timeoutConMs: number): boolean {
  return now <= lastUpdate + 2 * timeoutConMs;
}

/**
 * The reports matching the listing's filters (§6): `name` (empty = all), `status` 0 = all,
 * > 0 active only, < 0 inactive only (the documented meaning; the original's REST code swaps them).
 */
export function filterFileMonitors(list: readonly FileMonitorReport[], f: { name?: string; status?: number }, now: number, timeoutConMs: number): FileMonitorReport[] {
  const name = (f.name ?? '').trim();
  const status = f.status ?? 0;
  return list.filter((m) => (name === '' || m.name === name)
    && (status === 0 || (status > 0) === isActive(m.lastUpdate, now, timeoutConMs)));
}
