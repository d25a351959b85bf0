import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, requireLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** EndTransfer (type 14, packets §11): end of the data phase, with the optional global hash. */
export interface EndTransferPacket {
  kind: 'endTransfer';
  /** Always 7 (REQUESTPACKET) from Java; echoed in the answer. */
  request: number;
  /** 0 = sender announces the end, 1 = receiver validated. */
  way: number;
  /** Lower-case hex of the sender's whole-transfer digest, or empty. */
  hash: string;
}

/** Java requires H == 1 and M == 1 exactly. */
export function decodeEndTransfer(p: PacketParts): EndTransferPacket {
  requireLength(p.header, 1, 'EndTransfer header');
  requireLength(p.middle, 1, 'EndTransfer middle');
  return { kind: 'endTransfer', request: p.header[0] as number, way: p.middle[0] as number, hash: fromUtf8(p.end) };
}

export function encodeEndTransfer(e: EndTransferPacket): PacketParts {
  return { type: PacketType.ENDTRANSFER, header: byteBytes(e.request), middle: byteBytes(e.way), end: utf8(e.hash) };
}
