// Transfer ids handed out from a block reserved in advance, for a process that asks for many ids one
// after another (decision 0015). Reserving is done by the sequence itself (one statement taking n
// values, outside any caller's transaction), so no other process can receive an id of the block.
//
// The block adapts to demand: it starts at 1 id (one sequence statement per id, as without a block)
// and doubles each time a block is used up within KEEP_MS of its reservation, up to MAX_BLOCK. Ids
// left over KEEP_MS after their reservation are dropped (a gap in the sequence, harmless), and the
// next block is half as large. So a process asking for an id now and then behaves exactly as
// without a block, and an id handed out was reserved at most KEEP_MS earlier: after `initdb
// -minimalSeq` run by another process, a running process may still hand out ids reserved before the
// reset during at most KEEP_MS. A reset in this process drops the block at once.

/** The largest block reserved at once. */
export const MAX_BLOCK = 64;
/** How long a reserved id may wait to be handed out. */
export const KEEP_MS = 1000;
/** After this long without a reservation the block size starts again at 1. */
const IDLE_MS = 10 * KEEP_MS;

export class IdBlock {
  private ids: bigint[] = [];
  private next = 0;
  /** When the current block was reserved (monotonic ms); -Infinity before the first. */
  private reservedAt = Number.NEGATIVE_INFINITY;
  private size = 1;
  private refill: Promise<void> | undefined;
  /** Changed by {@link clear}: a reservation started before it is not used. */
  private generation = 0;

  /**
   * `reserve(n)`: n new ids from the sequence, ascending. `now`: a monotonic clock in ms.
   */
  constructor(private readonly reserve: (n: number) => Promise<bigint[]>, private readonly now: () => number = () => performance.now()) {}

  /** The next id: from the block, or from a new reservation when the block is used up or too old. */
  async take(): Promise<bigint> {
    for (;;) {
      const id = this.shift();
      if (id !== undefined) return id;
      this.refill ??= this.fill().finally(() => {
        this.refill = undefined;
      });
      await this.refill;
    }
  }

  /** Drops the block and its history (the sequence was restarted by this process). */
  clear(): void {
    this.ids = [];
    this.next = 0;
    this.size = 1;
    this.reservedAt = Number.NEGATIVE_INFINITY;
    this.generation++;
  }

  /** Ids reserved and not handed out yet (for tests). */
  get pending(): number {
    return this.ids.length - this.next;
  }

  private shift(): bigint | undefined {
    if (this.next >= this.ids.length) return undefined;
    if (this.now() - this.reservedAt > KEEP_MS) {
      // Reserved too long ago: the demand was lower than the block.
      this.ids = [];
      this.next = 0;
      return undefined;
    }
    return this.ids[this.next++];
  }

  private async fill(): Promise<void> {
    const now = this.now();
    const elapsed = now - this.reservedAt;
    const usedUp = this.ids.length > 0 && this.next >= this.ids.length;
    if (elapsed > IDLE_MS) this.size = 1;
    else if (usedUp && elapsed <= KEEP_MS) this.size = Math.min(MAX_BLOCK, this.size * 2);
    else this.size = Math.max(1, this.size >> 1);
    const generation = this.generation;
    const size = this.size;
    const ids = await this.reserve(size);
    if (generation !== this.generation) return;
    this.ids = ids;
    this.next = 0;
    this.reservedAt = this.now();
  }
}
