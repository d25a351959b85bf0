/**
 * The header figures of both areas (web-ui.md §1.2, §2.2), computed in one place so the rendered
 * page and the live `facts` event say the same thing: bandwidth in Mbit/s (monitoring, the
 * original's bytes/s ÷ 131072) and MB/s (administration), running transfers (active channels; with the run
 * limit, administration's Local) and open R66 connections.
 */
import type { RuntimeCounters } from '../http/context.js';
import type { LiveFacts } from './live.js';

/** Mbit/s with one decimal below 10, so a slow transfer does not read as 0. */
function mbits(bytesPerSecond: number): string {
  const v = bytesPerSecond / 131072;
  return v > 0 && v < 10 ? v.toFixed(1) : v.toFixed(0);
}

export function headerFacts(c: RuntimeCounters, runLimit?: number): LiveFacts {
  const [inB, outB] = [c.inBandwidth(), c.outBandwidth()];
  const mb = (v: number): string => (v / 1_048_576).toFixed(2);
  return {
    bandwidth: `IN:${mbits(inB)}Mbits OUT:${mbits(outB)}Mbits`, bandwidthMB: `IN:${mb(inB)}MB/s OUT:${mb(outB)}MB/s`,
    channels: String(c.activeChannels()), local: `${c.activeChannels()} ${runLimit ?? ''}`.trim(), connections: String(c.networkConnections()),
  };
}
