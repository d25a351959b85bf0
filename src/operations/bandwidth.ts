/**
 * The bandwidth order of the original (rest-v1.md §12.1, bandwidth.md §4.1), one rule for its
 * three entry points: REST v1 `PUT /bandwidth`, the R66 bandwidth request (Valid and JsonCommand
 * sub-type 19, `ChangeBandwidthLimits`) and the web page through the same control. Each value is
 * truncated to a multiple of 10, a negative one keeps the current limit, then the host's
 * consistency rule applies (<= 0 is unlimited, a session limit above its global one is lowered).
 * The change is live only: the original keeps it in memory, a restart goes back to the
 * configuration (and the CONFIGURATION row).
 */
import { normaliseLimits } from '../transfer/shaper.js';

/** The four limits in bytes per second, 0 = unlimited. */
export interface FourLimits {
  writeGlobal: number;
  readGlobal: number;
  writeSession: number;
  readSession: number;
}

/** What an order asks, as the packets carry it (int64); negative = keep. */
export interface BandwidthOrder {
  writeGlobal: bigint;
  readGlobal: bigint;
  writeSession: bigint;
  readSession: bigint;
}

/** The limits after `order` on `current` (other fields of `current`, the check delay, are kept). */
export function limitsAfterOrder<L extends FourLimits>(current: L, order: BandwidthOrder): L {
  const pick = (v: bigint, cur: number): number => (v < 0n ? cur : Number(v / 10n) * 10);
  return {
    ...current,
    ...normaliseLimits({
      writeGlobal: pick(order.writeGlobal, current.writeGlobal), readGlobal: pick(order.readGlobal, current.readGlobal),
      writeSession: pick(order.writeSession, current.writeSession), readSession: pick(order.readSession, current.readSession),
    }),
  };
}
