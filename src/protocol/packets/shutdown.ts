import { PacketType } from '../constants.js';
import { requireMinLength } from '../bytes.js';
import type { PacketParts } from '../envelope.js';

/** Shutdown (type 8, packets §9): shutdown order carrying the receiving server's admin wire key. */
export interface ShutdownPacket {
  kind: 'shutdown';
  /** 16-byte admin wire key. */
  key: Buffer;
  /** Restart after shutdown (middle byte non-zero). */
  restart: boolean;
}

/** Java requires H >= 1. */
export function decodeShutdown(p: PacketParts): ShutdownPacket {
  requireMinLength(p.header, 1, 'Shutdown key');
  return { kind: 'shutdown', key: p.header, restart: p.middle.length > 0 && p.middle[0] !== 0 };
}

export function encodeShutdown(s: ShutdownPacket): PacketParts {
  return { type: PacketType.SHUTDOWN, header: Buffer.from(s.key), middle: s.restart ? Buffer.of(1) : Buffer.alloc(0), end: Buffer.alloc(0) };
}
