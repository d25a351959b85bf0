/**
 * A single-byte charset as Java has it, from its decoding table: every byte decodes to one UTF-16
 * unit (U+FFFD where the charset has no character); encoding is the reverse of the table, the
 * lowest byte winning where two bytes decode to one character, then the one-way pairs Java adds
 * (`encodeOnly`); any other character is written as 0x3F, once per code point (a surrogate pair
 * is one character), as Java writes its replacement for these charsets.
 */
import type { Codec } from './charset-family.js';

const REPLACEMENT = 0x3f;

export function singleByteCodec(table: ArrayLike<number>, encodeOnly: ReadonlyArray<readonly [number, number]>): Codec {
  const decodeBuf = Buffer.alloc(512);
  for (let byte = 0; byte < 256; byte++) decodeBuf.writeUInt16LE(table[byte] as number, 2 * byte);
  const encodeBuf = new Uint8Array(0x10000).fill(REPLACEMENT);
  for (let byte = 255; byte >= 0; byte--) if (table[byte] !== 0xfffd) encodeBuf[table[byte] as number] = byte;
  for (const [unit, byte] of encodeOnly) encodeBuf[unit] = byte;
  return {
    decode(data) {
      const out = Buffer.allocUnsafe(2 * data.length);
      for (let i = 0; i < data.length; i++) {
        const at = 2 * (data[i] as number);
        out[2 * i] = decodeBuf[at] as number;
        out[2 * i + 1] = decodeBuf[at + 1] as number;
      }
      return out.toString('utf16le');
    },
    encode(text) {
      const out = Buffer.allocUnsafe(text.length);
      let n = 0;
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const next = text.charCodeAt(i + 1);
          if (next >= 0xdc00 && next <= 0xdfff) i++;
        }
        out[n++] = encodeBuf[unit] as number; // surrogates have no byte: the replacement
      }
      return out.subarray(0, n);
    },
  };
}
