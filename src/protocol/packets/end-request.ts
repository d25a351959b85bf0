import { errorCodeFromOrdinal, type ErrorCodeInfo } from '../../model/error-code.js';
import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, int32Bytes, requireLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';
import { packetError } from '../errors.js';

/** EndRequest (type 20, packets §13.1): final handshake of a transfer. */
export interface EndRequestPacket {
  kind: 'endRequest';
  /** Travels as its **ordinal** (CompleteOk = 4). */
  code: ErrorCodeInfo;
  /** 0 = sender asks, 1 = receiver answers. */
  way: number;
  /** Optional business information, normally empty. */
  info: string;
}

/** Java requires H == 4 and M == 1; an ordinal outside the table is rejected (Java cannot map it). */
export function decodeEndRequest(p: PacketParts): EndRequestPacket {
  requireLength(p.header, 4, 'EndRequest code');
  requireLength(p.middle, 1, 'EndRequest way');
  const ordinal = p.header.readInt32BE(0);
  const code = errorCodeFromOrdinal(ordinal);
  if (!code) throw packetError(`EndRequest code ${ordinal} is not an ErrorCode ordinal`);
  return { kind: 'endRequest', code, way: p.middle[0] as number, info: fromUtf8(p.end) };
}

export function encodeEndRequest(e: EndRequestPacket): PacketParts {
  return { type: PacketType.ENDREQUEST, header: int32Bytes(e.code.ordinal), middle: byteBytes(e.way), end: utf8(e.info) };
}
