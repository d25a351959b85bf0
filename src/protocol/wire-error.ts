/**
 * The domain error (src/model/r66-error.ts) on the wire, both ways, in one place (decision 0049):
 * the Error packet this host sends for it, and the R66Error a partner's Error or ConnectionError
 * packet ends a conversation with. The code travels as its character in the middle (packets §6);
 * a stop or a cancel carries the header the original sends (r66-protocol.md §9.7).
 */
import { ErrorCode, parseErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import type { ConnectionErrorPacket } from './packets/connection-error.js';
import { CANCELED_TRANSFER_MESSAGE, errorPacket, stoppedTransferMessage, type ErrorPacket } from './packets/error.js';

/**
 * The Error packet that tells the partner about `err`. `rank`: the transfer's rank, which a stop
 * hands to the partner as its restart point (a receiver's; absent elsewhere, the rank is 0).
 */
export function errorPacketOf(err: R66Error, rank = 0): ErrorPacket {
  if (err.code === ErrorCode.StoppedTransfer) return errorPacket(stoppedTransferMessage(rank), err.code);
  if (err.code === ErrorCode.CanceledTransfer) return errorPacket(CANCELED_TRANSFER_MESSAGE, err.code);
  return errorPacket(err.message, err.code);
}

/** The partner's Error packet as the error its conversation ends with (not sent back to it). */
export function errorOfPacket(p: ErrorPacket): R66Error {
  return new R66Error(p.code, p.message, { fromPartner: true });
}

/**
 * A partner's ConnectionError (packets §7). On a channel its middle, when any, is the code the
 * channel ends with; otherwise (and for the whole connection) ConnectionImpossible.
 */
export function errorOfConnectionError(p: ConnectionErrorPacket, onChannel: boolean): R66Error {
  const code = onChannel && p.middle.length > 0 ? parseErrorCode(p.middle) : ErrorCode.ConnectionImpossible;
  return new R66Error(code, p.message, { fromPartner: true });
}
