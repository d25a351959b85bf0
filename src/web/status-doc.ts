/**
 * The monitoring status documents `/statusxml` and `/statusjson` (web-ui.md §1.5): the same data
 * in both, element/key names and order exactly as the original's, read by existing tools. The
 * counters are recomputed at most once per `minimaldelay` (per period and detail), as the original
 * caches them; the snapshot itself is the REST status computation (src/http/status.ts).
 */
import type { RestServices } from '../http/context.js';
import { ERROR_COUNTERS, RUNNING_COUNTERS, statusSnapshot, type StatusSnapshot } from '../http/status.js';
import { formatIsoLocal } from '../model/iso-date.js';

type Value = string | number | StatusTree;
export interface StatusTree {
  [name: string]: Value;
}

/** Builds the STATUS tree in the original's order; detailed parts only with `detail`. */
export function statusTree(hostId: string, s: StatusSnapshot, lastRun: Date, startedAt: Date, detail: boolean): StatusTree {
  const iso = (d: Date | null): string => formatIsoLocal(d ?? startedAt);
  const running: StatusTree = { AllRunning: s.byStatus[5] };
  if (detail) for (const [, name, char] of RUNNING_COUNTERS) running[name] = s.runningByStatus.get(char) ?? 0;
  const tree: StatusTree = {
    HostID: hostId, Date: iso(s.date), LastRun: iso(lastRun), FromDate: iso(s.fromDate), SecondsRunning: s.secondsRunning,
    NetworkConnections: s.networkConnections, NbThreads: nbThreads(), InBandwidth: s.inBandwidth, OutBandwidth: s.outBandwidth,
    OVERALL: {
      AllTransfer: s.all, Unknown: s.byStatus[0], NotUpdated: s.byStatus[1], Interrupted: s.byStatus[2], ToSubmit: s.byStatus[3], Error: s.byStatus[4],
      Running: s.byStatus[5], Done: s.byStatus[6], InRunning: s.runningIn, OutRunning: s.runningOut, LastInRunning: iso(s.lastRunningIn),
      LastOutRunning: iso(s.lastRunningOut), InAll: s.allIn, OutAll: s.allOut, InError: s.errorsIn, OutError: s.errorsOut,
    },
    STEPS: { Notask: s.bySteps[0], Pretask: s.bySteps[1], Transfer: s.bySteps[2], Posttask: s.bySteps[3], AllDone: s.bySteps[4], Error: s.bySteps[5] },
    RUNNINGSTEPS: running,
  };
  if (detail) tree.ERRORTYPES = Object.fromEntries(ERROR_COUNTERS.map(([, name, code]) => [name, s.byError.get(code) ?? 0]));
  return { STATUS: tree };
}

/** Threads have no Node equivalent: the event loop plus libuv's pool size is the closest count. */
function nbThreads(): number {
  return 1 + Number(process.env.UV_THREADPOOL_SIZE ?? 4);
}

const xmlText = (v: string): string => v.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));

export function statusXml(tree: StatusTree): string {
  const write = (t: StatusTree): string => Object.entries(t).map(([k, v]) => `<${k}>${typeof v === 'object' ? write(v) : xmlText(String(v))}</${k}>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(tree)}\n`;
}

export function statusJson(tree: StatusTree): string {
  return `${JSON.stringify(tree, null, 2)}\n`;
}

/** The status documents with the original's recomputation delay. */
export class StatusDocuments {
  private cache = new Map<string, { at: number; tree: StatusTree }>();

  constructor(private readonly services: RestServices) {}

  async tree(periodSeconds: number | undefined, detail: boolean): Promise<StatusTree> {
    const { config } = this.services;
    const periodMs = periodSeconds !== undefined && periodSeconds > 0 ? periodSeconds * 1000 : config.server.pastLimit;
    const key = `${periodMs}/${detail}`;
    const now = this.services.now().getTime();
    const cached = this.cache.get(key);
    if (cached !== undefined && now - cached.at < config.server.minimalDelay) return cached.tree;
    const snapshot = await statusSnapshot(this.services, periodMs);
    const tree = statusTree(config.hostId, snapshot, new Date(now), this.services.startedAt, detail);
    // A few keys at most (one per period asked): a caller varying NB cannot grow it without bound.
    if (this.cache.size > 32) this.cache.clear();
    this.cache.set(key, { at: now, tree });
    return tree;
  }
}
