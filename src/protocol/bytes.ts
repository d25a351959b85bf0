import { packetError } from './errors.js';

/** UTF-8 bytes of a string (no terminator, no length prefix). */
export function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** Decodes UTF-8 like Java's `new String(bytes, UTF_8)`: malformed input becomes U+FFFD. */
export function fromUtf8(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** Big-endian int32 as 4 bytes. */
export function int32Bytes(value: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(value | 0, 0);
  return b;
}

/** One byte (the low 8 bits of `value`). */
export function byteBytes(value: number): Buffer {
  return Buffer.of(value & 0xff);
}

/** Reads a big-endian int32 at `offset` of a part, refusing a short part with a ProtocolError. */
export function readInt32(part: Buffer, offset: number, what: string): number {
  if (part.length < offset + 4) throw packetError(`${what}: expected 4 bytes at offset ${offset}, part has ${part.length}`);
  return part.readInt32BE(offset);
}

/** Reads one unsigned byte at `offset`, refusing a short part with a ProtocolError. */
export function readByte(part: Buffer, offset: number, what: string): number {
  if (part.length <= offset) throw packetError(`${what}: expected a byte at offset ${offset}, part has ${part.length}`);
  return part[offset] as number;
}

/** Requires an exact part length (Java decoders that check `==`). */
export function requireLength(part: Buffer, length: number, what: string): void {
  if (part.length !== length) throw packetError(`${what}: length must be ${length}, got ${part.length}`);
}

/** Requires a minimum part length (Java decoders that check `>=`). */
export function requireMinLength(part: Buffer, length: number, what: string): void {
  if (part.length < length) throw packetError(`${what}: length must be at least ${length}, got ${part.length}`);
}

/** True when `value` is an int32. */
export function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff;
}
