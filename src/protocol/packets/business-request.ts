import { PacketType } from '../constants.js';
import { byteBytes, fromUtf8, int32Bytes, requireLength, utf8 } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** BusinessRequest (type 22, packets §13.3). */
export interface BusinessRequestPacket {
  kind: 'businessRequest';
  /** `<Java class name>` followed by space-separated arguments. */
  header: string;
  /** Execution timeout in ms (0 from the Java client). */
  delay: number;
  /** 0 = ask, 1 = validated, 2 = refused. */
  way: number;
}

/** Java requires M == 4 and E == 1. */
export function decodeBusinessRequest(p: PacketParts): BusinessRequestPacket {
  requireLength(p.middle, 4, 'BusinessRequest delay');
  requireLength(p.end, 1, 'BusinessRequest way');
  return { kind: 'businessRequest', header: fromUtf8(p.header), delay: p.middle.readInt32BE(0), way: p.end[0] as number };
}

export function encodeBusinessRequest(b: BusinessRequestPacket): PacketParts {
  return { type: PacketType.BUSINESSREQUEST, header: utf8(b.header), middle: int32Bytes(b.delay), end: byteBytes(b.way) };
}
