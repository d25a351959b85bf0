/**
 * The R66 layer's warning notifications for trouble inside the server (monitoring.md §B.5): a
 * packet for a local channel that does not exist (`No LocalChannelReference`, the packet type)
 * and an unexpected exception (`Unexpected exception`, or the original's `OOME so shutdown and
 * restart` for a failed allocation). Sent through the Notify handed down at composition.
 */
import type { Notify } from '../model/notifications.js';
import { PacketType } from '../protocol/constants.js';

const PACKET_NAMES = new Map<number, string>(Object.entries(PacketType).map(([name, code]) => [code, `${name}PACKET`]));

/** The original's texts (alert rules written for it match them). */
export const UNKNOWN_CHANNEL_TEXT = 'No LocalChannelReference';
export const UNEXPECTED_TEXT = 'Unexpected exception';
export const OUT_OF_MEMORY_TEXT = 'OOME so shutdown and restart';

/** A frame arrived for a local channel id this connection does not (or no longer) have. */
export function notifyUnknownChannel(notify: Notify | undefined, packetCode: number): void {
  notify?.('warning', UNKNOWN_CHANNEL_TEXT, PACKET_NAMES.get(packetCode) ?? `packet type ${packetCode}`);
}

/** A failed allocation that JavaScript lets the program catch (the rest aborts the process). */
function isAllocationFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  return code === 'ERR_MEMORY_ALLOCATION_FAILED' || code === 'ERR_BUFFER_TOO_LARGE' || code === 'ERR_STRING_TOO_LONG'
    || (err instanceof RangeError && /allocation failed|Invalid (string|array) length|out of memory/i.test(err.message));
}

/**
 * An error the server did not expect (not one of the protocol's, a bug or a resource failure):
 * `Unexpected exception`, or `OOME so shutdown and restart` for a failed allocation, with the
 * error's message. Never throws.
 */
export function notifyUnexpected(notify: Notify | undefined, err: unknown): void {
  const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  notify?.('warning', isAllocationFailure(err) ? OUT_OF_MEMORY_TEXT : UNEXPECTED_TEXT, message);
}
