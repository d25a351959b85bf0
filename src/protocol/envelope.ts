import { ENVELOPE_HEADER_SIZE, ENVELOPE_L1_BIAS, FRAME_HEADER_SIZE } from './constants.js';
import { packetError } from './errors.js';
import { writeFrameHeader } from './frame.js';

/** The three parts of a local packet and its type byte (r66-protocol.md §4). */
export interface PacketParts {
  type: number;
  header: Buffer;
  middle: Buffer;
  end: Buffer;
}

/**
 * Splits local packet bytes into type and parts (views, no copy). The lengths must account for
 * every byte exactly: `L1 - 9 + M + E + 13 === bytes.length`.
 */
export function decodeEnvelope(bytes: Buffer): PacketParts {
  if (bytes.length < ENVELOPE_HEADER_SIZE) throw packetError(`local packet of ${bytes.length} bytes is shorter than its ${ENVELOPE_HEADER_SIZE}-byte envelope`);
  const l1 = bytes.readInt32BE(0);
  const m = bytes.readInt32BE(4);
  const e = bytes.readInt32BE(8);
  const h = l1 - ENVELOPE_L1_BIAS;
  if (h < 0 || m < 0 || e < 0) throw packetError(`local packet with negative part length (L1=${l1}, M=${m}, E=${e})`);
  if (ENVELOPE_HEADER_SIZE + h + m + e !== bytes.length) {
    throw packetError(`local packet part lengths (H=${h}, M=${m}, E=${e}) do not match its ${bytes.length} bytes`);
  }
  const hs = ENVELOPE_HEADER_SIZE;
  return {
    type: bytes[12] as number,
    header: bytes.subarray(hs, hs + h),
    middle: bytes.subarray(hs + h, hs + h + m),
    end: bytes.subarray(hs + h + m, hs + h + m + e),
  };
}

/** Writes the 13-byte envelope header at `offset` of `into`. */
export function writeEnvelopeHeader(into: Buffer, offset: number, type: number, h: number, m: number, e: number): void {
  into.writeInt32BE(h + ENVELOPE_L1_BIAS, offset);
  into.writeInt32BE(m, offset + 4);
  into.writeInt32BE(e, offset + 8);
  into[offset + 12] = type & 0xff;
}

function writeParts(out: Buffer, offset: number, parts: PacketParts): void {
  writeEnvelopeHeader(out, offset, parts.type, parts.header.length, parts.middle.length, parts.end.length);
  let pos = offset + ENVELOPE_HEADER_SIZE;
  out.set(parts.header, pos);
  pos += parts.header.length;
  out.set(parts.middle, pos);
  pos += parts.middle.length;
  out.set(parts.end, pos);
}

function partsLength(parts: PacketParts): number {
  return ENVELOPE_HEADER_SIZE + parts.header.length + parts.middle.length + parts.end.length;
}

/** Local packet bytes from its parts. */
export function encodeEnvelope(parts: PacketParts): Buffer {
  const out = Buffer.allocUnsafe(partsLength(parts));
  writeParts(out, 0, parts);
  return out;
}

/** A whole network frame from parts, in a single allocation (frame code = type byte). */
export function encodeEnvelopeFrame(dstId: number, srcId: number, parts: PacketParts): Buffer {
  const local = partsLength(parts);
  const out = Buffer.allocUnsafe(FRAME_HEADER_SIZE + local);
  writeFrameHeader(out, 0, dstId, srcId, parts.type, local);
  writeParts(out, FRAME_HEADER_SIZE, parts);
  return out;
}
