import { ErrorCode, parseErrorCode, type ErrorCodeInfo } from '../../model/error-code.js';
import { ErrorAction, PacketType } from '../constants.js';
import { fromUtf8, int32Bytes, requireLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** Error (type 5, packets §6): ends the conversation on a local channel with an ErrorCode. */
export interface ErrorPacket {
  kind: 'error';
  /** Human-readable message. For `H` it must end with ` <rank>` (see stoppedTransferMessage). */
  message: string;
  /** The code, travelling as its character in the middle part. */
  code: ErrorCodeInfo;
  /** Error action; Java always sends FORWARDCLOSECODE (3) and receivers ignore it. */
  action: number;
}

/** Java requires E == 4 exactly. The middle is parsed like Java parses a code string. */
export function decodeError(p: PacketParts): ErrorPacket {
  requireLength(p.end, 4, 'Error end');
  return { kind: 'error', message: fromUtf8(p.header), code: parseErrorCode(fromUtf8(p.middle)), action: p.end.readInt32BE(0) };
}

export function encodeError(e: ErrorPacket): PacketParts {
  return { type: PacketType.ERROR, header: utf8(e.message), middle: utf8(e.code.char), end: int32Bytes(e.action) };
}

/** An Error as the Java host sends it: action FORWARDCLOSECODE. */
export function errorPacket(message: string, code: ErrorCodeInfo): ErrorPacket {
  return { kind: 'error', message, code, action: ErrorAction.FORWARDCLOSECODE };
}

/** The stop Error's header: the receiver parses its last token as the rank (r66-protocol.md §9.7). */
export function stoppedTransferMessage(rank: number): string {
  return `${ErrorCode.StoppedTransfer.name} ${rank}`;
}

/** The cancel Error's header as Java sends it. */
export const CANCELED_TRANSFER_MESSAGE = `${ErrorCode.CanceledTransfer.name} 0`;

/** The rank in a StoppedTransfer Error header (last space-separated token), or null if not numeric. */
export function parseStoppedRank(message: string): number | null {
  const tokens = message.trim().split(/\s+/);
  const last = tokens[tokens.length - 1] ?? '';
  if (!/^-?\d{1,10}$/.test(last)) return null;
  const n = Number(last);
  return n >= -0x80000000 && n <= 0x7fffffff ? n : null;
}
