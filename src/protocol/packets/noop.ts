import { PacketType } from '../constants.js';
import type { PacketParts } from '../envelope.js';

/** NoOp (type 23, packets §13.4): all parts empty; only counts as activity. */
export interface NoOpPacket {
  kind: 'noOp';
}

/** Any part content is ignored, as the receiver ignores the packet. */
export function decodeNoOp(_p: PacketParts): NoOpPacket {
  return { kind: 'noOp' };
}

export function encodeNoOp(_n: NoOpPacket): PacketParts {
  return { type: PacketType.NOOP, header: Buffer.alloc(0), middle: Buffer.alloc(0), end: Buffer.alloc(0) };
}
