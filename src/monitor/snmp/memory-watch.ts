/**
 * Memory running out (monitoring.md §B.5, `OOME so shutdown and restart`): watched here
 * (MemoryWatch, started with the agent), since a JavaScript heap that is really exhausted aborts
 * the process before any code can run. The other warnings for trouble inside the server (unknown
 * local channel, unexpected exception) are the R66 layer's (src/net/alerts.ts). Sent in the
 * background through the agent's hub (`notify`).
 */
import { getHeapStatistics } from 'node:v8';
import { OUT_OF_MEMORY_TEXT } from '../../net/alerts.js';
import type { Notify } from '../../model/notifications.js';

/** One memory sample: the JavaScript heap and, under a cgroup limit, the process's resident size. */
export interface MemorySample {
  heapUsed: number;
  heapLimit: number;
  rss: number;
  /** The container's memory limit, 0 when none. */
  rssLimit: number;
}

export function sampleMemory(): MemorySample {
  const h = getHeapStatistics();
  // Node 20 reports "no limit" as 0 or as a huge number.
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() ?? 0 : 0;
  return { heapUsed: h.used_heap_size, heapLimit: h.heap_size_limit, rss: process.memoryUsage.rss(), rssLimit: constrained > 0 && constrained < 2 ** 60 ? constrained : 0 };
}

export interface MemoryWatchOptions {
  /** Share of a limit (0-1) at which the warning goes out; default 0.9. */
  ratio?: number;
  /** Sampling period in ms; default 5000. */
  periodMs?: number;
  sample?: () => MemorySample;
  /** Called with the detail text whenever a warning is sent (the caller logs it). */
  onLow?: (detail: string) => void;
  /** Where the warning goes (the agent's hub); absent: only `onLow`. */
  notify?: Notify;
}

const MiB = 1024 * 1024;

/**
 * Samples the memory on a timer (unref'd: it never holds the process) and sends the
 * out-of-memory warning when the heap or the resident size reaches `ratio` of its limit. Sent once
 * per episode: again only after the use fell below `ratio - 0.1` of the limit.
 */
export class MemoryWatch {
  private timer: NodeJS.Timeout | undefined;
  private low = false;
  private readonly ratio: number;
  private readonly periodMs: number;
  private readonly sample: () => MemorySample;

  constructor(private readonly options: MemoryWatchOptions = {}) {
    this.ratio = options.ratio !== undefined && options.ratio > 0 && options.ratio <= 1 ? options.ratio : 0.9;
    this.periodMs = options.periodMs !== undefined && options.periodMs > 0 ? options.periodMs : 5000;
    this.sample = options.sample ?? sampleMemory;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.check();
    this.timer = setInterval(() => this.check(), this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One sample; returns the detail text when a warning was sent. */
  check(): string | undefined {
    const s = this.sample();
    const heap = s.heapLimit > 0 ? s.heapUsed / s.heapLimit : 0;
    const rss = s.rssLimit > 0 ? s.rss / s.rssLimit : 0;
    const use = Math.max(heap, rss);
    if (this.low) {
      if (use < this.ratio - 0.1) this.low = false;
      return undefined;
    }
    if (use < this.ratio) return undefined;
    this.low = true;
    const detail = heap >= rss
      ? `JavaScript heap ${Math.round(s.heapUsed / MiB)} MiB used of its ${Math.round(s.heapLimit / MiB)} MiB limit (${Math.round(heap * 100)}%)`
      : `resident memory ${Math.round(s.rss / MiB)} MiB of the ${Math.round(s.rssLimit / MiB)} MiB memory limit (${Math.round(rss * 100)}%)`;
    this.options.notify?.('warning', OUT_OF_MEMORY_TEXT, detail);
    this.options.onLow?.(detail);
    return detail;
  }
}

/** `SVC_SNMP_MEMORY_WARN` (a share 0-1 or a percentage), else the default 0.9. */
export function memoryWarnRatio(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.SVC_SNMP_MEMORY_WARN?.trim();
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw.replace(/%$/, ''));
  if (!Number.isFinite(n) || n <= 0) return undefined;
  const ratio = raw.endsWith('%') || n > 1 ? n / 100 : n;
  return ratio > 0 && ratio <= 1 ? ratio : undefined;
}
