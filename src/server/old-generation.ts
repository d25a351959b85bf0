/**
 * How far the server's V8 old generation may grow between two full collections (decision 0035).
 *
 * After each full collection V8 lets the old generation grow to its live size times a factor it
 * picks from how fast collections and the program run: up to 4 for a process that allocates fast,
 * as a server moving small files does. Transfer state and push batches live long enough to be
 * promoted and then die, so the old generation filled with garbage up to that limit: the bench's
 * hosts peaked at 170-254 MB with about 50 MB live (docs/performance-log.md, sixteenth session).
 * A fixed factor of 2 (`--heap-growing-percent=100`) bounds that at twice the live size, for a few
 * more full collections (concurrent marking of the live set, on V8's helper thread). V8 reads the
 * flag at each collection, so the running process can set it, as for the young generation.
 */
import { setV8FlagUnlessGiven } from '../config/node-flags.js';

/** The old generation may grow to (1 + this / 100) times what the last full collection kept. */
export const OLD_GENERATION_GROWING_PERCENT = 100;
const FLAG = '--heap-growing-percent';

/**
 * Sets the old generation's growing factor, unless the operator gave one on the node command line
 * (`node --heap-growing-percent=N bin/svc-r66server.js start`), which then stays in force.
 * Returns the percent set, or undefined when the command line's was kept.
 */
export function capOldGenerationGrowth(execArgv: readonly string[] = process.execArgv): number | undefined {
  return setV8FlagUnlessGiven(FLAG, OLD_GENERATION_GROWING_PERCENT, execArgv);
}
