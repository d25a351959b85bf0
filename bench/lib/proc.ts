/**
 * CPU time and memory of other processes, read from /proc (Linux), so hosts need no cooperation:
 * a raw peer, an svc server and an svc client are measured the same way.
 *
 * - CPU: utime + stime of /proc/<pid>/stat, at the start and the end of the window.
 * - Peak RSS: VmHWM is reset at the start of the window (writing 5 to /proc/<pid>/clear_refs), so
 *   the VmHWM read at the end is the peak of the window itself, even between two samples; VmRSS is
 *   also sampled every few tens of ms, which gives the timeline used for RSS growth and a fallback
 *   where clear_refs is refused.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { ProcessUsage } from './types.js';

/** Clock ticks per second of /proc/<pid>/stat; 100 on every Linux we run on (getconf CLK_TCK). */
export const CLOCK_TICKS = 100;
const SAMPLE_MS = 25;

export interface RssSample {
  t: number;
  rss: number;
}

/**
 * utime + stime of a process in clock ticks (CLOCK_TICKS a second), undefined once it is gone;
 * with `mainThread`, of its main thread alone (the task whose id is the pid's).
 */
export function cpuTicks(pid: number, mainThread = false): number | undefined {
  try {
    const stat = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  } catch {
    return undefined;
  }
}

function statusKb(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
  } catch {
    return undefined;
  }
}

function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** One watched process over one measurement window. */
export class ProcessWatch {
  readonly samples: RssSample[] = [];
  private readonly startTicks: number;
  private readonly startMainTicks: number | undefined;
  private endMainTicks: number | undefined;
  private readonly peakReset: boolean;
  private peak = 0;
  private endTicks: number | undefined;
  /** CPU at the last sample: what is left of a process (a client command) that exits at the end. */
  private lastTicks: number;

  constructor(readonly pid: number, readonly role: string) {
    this.startTicks = cpuTicks(pid) ?? 0;
    this.startMainTicks = cpuTicks(pid, true);
    this.lastTicks = this.startTicks;
    this.peakReset = resetPeak(pid);
    this.sample();
  }

  sample(): void {
    if (this.endTicks !== undefined) return;
    const s = statusKb(this.pid);
    if (s === undefined) return;
    this.lastTicks = cpuTicks(this.pid) ?? this.lastTicks;
    this.samples.push({ t: performance.now(), rss: s.rss });
    this.peak = Math.max(this.peak, s.rss, this.peakReset ? s.hwm : 0);
  }

  /** Ends the window: the last sample and CPU reading (the process must still be alive for them). */
  end(): void {
    this.sample();
    this.endTicks = cpuTicks(this.pid) ?? this.lastTicks;
    this.endMainTicks = cpuTicks(this.pid, true);
  }

  usage(): ProcessUsage {
    const end = this.endTicks ?? this.lastTicks;
    const usage: ProcessUsage = { role: this.role, pid: this.pid, cpuSeconds: (end - this.startTicks) / CLOCK_TICKS, peakRssBytes: this.peak };
    if (this.startMainTicks !== undefined && this.endMainTicks !== undefined) usage.mainThreadCpuSeconds = (this.endMainTicks - this.startMainTicks) / CLOCK_TICKS;
    return usage;
  }

  /** Highest sampled RSS between two instants (performance.now()). */
  peakBetween(from: number, to: number): number {
    let max = 0;
    for (const s of this.samples) if (s.t >= from && s.t <= to) max = Math.max(max, s.rss);
    return max;
  }
}

/** Watches several processes at once with one sampling timer. */
export class Monitor {
  private readonly watches: ProcessWatch[] = [];
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      for (const w of this.watches) w.sample();
    }, SAMPLE_MS);
  }

  watch(pid: number, role: string): ProcessWatch {
    const w = new ProcessWatch(pid, role);
    this.watches.push(w);
    return w;
  }

  /** Ends every window and returns the usage of each process, in the order they were watched. */
  finish(): ProcessUsage[] {
    clearInterval(this.timer);
    for (const w of this.watches) w.end();
    return this.watches.map((w) => w.usage());
  }

  /** When the monitor started (performance.now()). */
  get startedAt(): number {
    return this.started;
  }

  get all(): readonly ProcessWatch[] {
    return this.watches;
  }
}
