/**
 * How the server's V8 young generation grows (decision 0016).
 *
 * V8 shrinks the young generation (new space) to a few MB when a collection finds the process idle,
 * and under load grows it back by doubling, one step each time as many bytes as its size survived
 * scavenges. A server that idled (the scheduler waiting, nothing received) and then runs a burst
 * of transfers went through three doublings (4 -> 8 -> 16 -> 32 MB) over its first 1000-2000 small
 * transfers, its RSS climbing with each (about 20 MB in all), then stayed level: a warm-up that
 * looked like a leak (docs/performance.md, "RSS growth of host-a").
 *
 * The growth factor is read by V8 at each growth, so it can be set once the process runs, unlike
 * the young generation's sizes (`--max-semi-space-size`, `--min-semi-space-size`, read when the
 * heap is made, before any code of ours). A factor of 16 makes the first growth go to the maximum
 * (16 MB semi-spaces by default, the size a busy server reaches anyway): the warm-up is over within
 * the first few hundred transfers. The maximum, idle shrinking and everything else stay V8's.
 */
import { setV8FlagUnlessGiven } from '../config/node-flags.js';

/** 16 x the smallest young generation (1 MB) reaches the default maximum (16 MB) in one step. */
export const YOUNG_GENERATION_GROWTH_FACTOR = 16;
const FLAG = '--semi-space-growth-factor';

/**
 * Sets the young generation's growth factor, unless the operator gave one on the node command line
 * (`node --semi-space-growth-factor=N bin/svc-r66server.js start`), which then stays in force.
 * Returns the factor set, or undefined when the command line's was kept.
 */
export function growYoungGenerationAtOnce(execArgv: readonly string[] = process.execArgv): number | undefined {
  return setV8FlagUnlessGiven(FLAG, YOUNG_GENERATION_GROWTH_FACTOR, execArgv);
}
