import { PacketType } from '../constants.js';
import { byteBytes, requireLength } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** KeepAlive (type 21, packets §13.2): connection-level, always with NOCHANNEL ids. */
export interface KeepAlivePacket {
  kind: 'keepAlive';
  /** 0 = ask, 1 = answer. */
  way: number;
}

/**
 * Java requires M == 1. The header must be empty: Java does not skip header bytes, so it would
 * read the way from a header byte; we refuse rather than disagree with it.
 */
export function decodeKeepAlive(p: PacketParts): KeepAlivePacket {
  requireLength(p.header, 0, 'KeepAlive header');
  requireLength(p.middle, 1, 'KeepAlive way');
  return { kind: 'keepAlive', way: p.middle[0] as number };
}

export function encodeKeepAlive(k: KeepAlivePacket): PacketParts {
  return { type: PacketType.KEEPALIVE, header: Buffer.alloc(0), middle: byteBytes(k.way), end: Buffer.alloc(0) };
}
