// The original's time-based 64-bit transfer id (database.md §7, GUID and no-database mode):
// bits 63..60 = upper nibble of the low byte of the process id, bits 59..20 = low 40 bits of the
// epoch milliseconds, bits 19..0 = a counter starting at random in 0..19 and wrapping at 2^20 - 1.

const COUNTER_MASK = (1n << 20n) - 1n;
const TIME_MASK = (1n << 40n) - 1n;

/** A generator of time-based ids; one per process is enough. */
export class GuidGenerator {
  private counter: bigint;
  private readonly high: bigint;

  constructor(pid = process.pid, private readonly now: () => number = Date.now) {
    this.counter = BigInt(Math.floor(Math.random() * 20));
    this.high = BigInt((pid & 0xf0) >> 4) << 60n;
  }

  /** The next id, as a signed 64-bit value (negative when the pid nibble is 8 or more). */
  next(): bigint {
    this.counter = (this.counter + 1n) & COUNTER_MASK;
    const value = this.high | ((BigInt(this.now()) & TIME_MASK) << 20n) | this.counter;
    return BigInt.asIntN(64, value);
  }
}
