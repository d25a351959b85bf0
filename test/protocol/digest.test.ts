import { describe, expect, it } from 'vitest';
import {
  DIGEST_ALGORITHMS,
  Digest,
  adler32,
  crc32,
  createR66Digest,
  digestFromIndex,
  digestFromWireName,
  digestHex,
  digestOf,
  sameHexDigest,
} from '../../src/protocol/index.js';

describe('digest algorithms (r66-protocol.md §10)', () => {
  it('has the indexes, wire names and sizes of the spec', () => {
    expect(DIGEST_ALGORITHMS.map((d) => `${d.index}:${d.wireName}`)).toEqual(['0:CRC32', '1:ADLER32', '2:MD5', '3:MD2', '4:SHA-1', '5:SHA-256', '6:SHA-384', '7:SHA-512']);
    expect(digestFromIndex(9)).toBe(Digest.CRC32);
    expect(digestFromWireName('SHA-512')).toBe(Digest.SHA512);
    expect(digestFromWireName('SHA512')).toBe(Digest.SHA512);
    expect(digestFromWireName('sha-512')).toBeUndefined();
    for (const d of DIGEST_ALGORITHMS) if (d.size !== null) expect(digestOf(d, Buffer.from('x')).length).toBe(d.size);
  });

  it('CRC32 and ADLER32 give octal ASCII text (spec trap: HELLO -> 30121062066)', () => {
    expect(digestOf(Digest.CRC32, Buffer.from('HELLO')).toString('hex')).toBe('3330313231303632303636');
    expect(crc32(Buffer.from('HELLO'))).toBe(0xc1446436);
    expect(adler32(Buffer.from('Wikipedia'))).toBe(0x11e60398);
    expect(digestOf(Digest.ADLER32, Buffer.from('Wikipedia')).toString()).toBe((0x11e60398).toString(8));
    expect(adler32(Buffer.alloc(100_000, 0xff))).toBe(adler32(Buffer.alloc(50_000, 0xff), adler32(Buffer.alloc(50_000, 0xff))));
  });

  it('CRC32/ADLER32 block digests are cumulative; MD5/SHA reset after each block', () => {
    const a = Buffer.from('first block');
    const b = Buffer.from('second');
    for (const algo of [Digest.CRC32, Digest.ADLER32]) {
      const d = createR66Digest(algo);
      d.update(a);
      d.digest();
      d.update(b);
      expect(d.digest()).toEqual(digestOf(algo, Buffer.concat([a, b])));
    }
    const md5 = createR66Digest(Digest.MD5);
    md5.update(a);
    md5.digest();
    md5.update(b);
    expect(md5.digest()).toEqual(digestOf(Digest.MD5, b));
  });

  it('matches the spec block digest vector (packets §4) and the MD2 RFC 1319 vectors', () => {
    expect(digestHex(digestOf(Digest.MD5, Buffer.from('0123456789ABCDEF')))).toBe('e43df9b5a46b755ea8f1b4dd08265544');
    expect(digestHex(digestOf(Digest.MD2, Buffer.from('')))).toBe('8350e5a3e24c153df2275c9f80692773');
    expect(digestHex(digestOf(Digest.MD2, Buffer.from('abc')))).toBe('da853b0d3f88d99b30283a69e6ded6bb');
    expect(digestHex(digestOf(Digest.MD2, Buffer.from('message digest')))).toBe('ab4f496bfb2a530b219ff33031fe06b0');
    expect(digestHex(digestOf(Digest.MD2, Buffer.from('12345678901234567890123456789012345678901234567890123456789012345678901234567890')))).toBe(
      'd5976f79d83d3a0dc9806c3c66f3efd8',
    );
  });

  it('matches the capture global hash: SHA-512 of hello.txt (session-a stream 0)', () => {
    expect(digestHex(digestOf(Digest.SHA512, Buffer.from('Hello Waarp R66 interop!\nline2\n')))).toBe(
      'cb968343b62326d1e155900f89f95ff2626d9fa9fdae8f87b0bc95441884abc6a162a954f05e122bb16cb00f69d3e3fdf281ed0039c23273350203f7e226fab1',
    );
    expect(sameHexDigest('ABCDEF', 'abcdef')).toBe(true);
  });
});
