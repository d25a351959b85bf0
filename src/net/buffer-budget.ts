/**
 * The bytes of incomplete frames held across every connection of the process (issue 21): each
 * connection accounts what its frame splitter holds or set aside, and a frame that would take the
 * total above the cap is refused (the connection is closed with a protocol error) instead of
 * being buffered. Frames up to one ordinary block always pass, so transfers never starve.
 */
import { ProtocolError } from '../protocol/index.js';
import { ErrorCode } from '../model/error-code.js';

/** Frames this small are never refused by the budget (a 64 KiB block plus its header). */
const ALWAYS_ADMITTED = 128 * 1024;

export class BufferBudget {
  private used = 0;

  constructor(readonly capacity: number) {}

  /** Bytes accounted now, by every connection. */
  get usedBytes(): number {
    return this.used;
  }

  /** Throws when a frame of `total` bytes does not fit (the caller's own `held` bytes are replaced by it). */
  admit(total: number, held: number): void {
    if (total <= ALWAYS_ADMITTED) return;
    if (this.used - held + total > this.capacity) {
      throw new ProtocolError(`frame of ${total} bytes refused: the host's buffer budget (${this.capacity} bytes) is in use`, ErrorCode.ConnectionImpossible, true);
    }
  }

  /** A connection's holding changed from `before` to `after` bytes. */
  update(before: number, after: number): void {
    this.used += after - before;
  }
}
