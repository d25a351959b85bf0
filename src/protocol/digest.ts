import { createHash, type Hash } from 'node:crypto';
import * as zlib from 'node:zlib';
import type { DigestAlgorithm } from '../model/digest.js';

/**
 * Running digests with the R66 semantics (r66-protocol.md §10): `digest()` returns the bytes that go
 * on the wire and, for MD5/SHA/MD2, starts a fresh digest (independent block digests); for CRC32 and
 * ADLER32 it returns the ASCII octal text of the checksum and does NOT reset (cumulative).
 */
export interface R66Digest {
  readonly algorithm: DigestAlgorithm;
  update(data: Uint8Array): void;
  digest(): Buffer;
}

/** Node's name of each algorithm OpenSSL provides by default (MD2 needs the legacy provider: ours is pure TS). */
export const NODE_HASH_NAMES: Readonly<Partial<Record<DigestAlgorithm['name'], string>>> = {
  MD5: 'md5',
  SHA1: 'sha1',
  SHA256: 'sha256',
  SHA384: 'sha384',
  SHA512: 'sha512',
};

/** Creates a running digest for one local channel / transfer session. */
export function createR66Digest(algorithm: DigestAlgorithm): R66Digest {
  switch (algorithm.name) {
    case 'CRC32': return new ChecksumDigest(algorithm, crc32, 0);
    case 'ADLER32': return new ChecksumDigest(algorithm, adler32, 1);
    case 'MD2': return new ResettingDigest(algorithm, () => new Md2());
    default: return new ResettingDigest(algorithm, () => createHash(NODE_HASH_NAMES[algorithm.name] as string));
  }
}

/** One-shot digest of `data` (wire bytes). */
export function digestOf(algorithm: DigestAlgorithm, data: Uint8Array): Buffer {
  const d = createR66Digest(algorithm);
  d.update(data);
  return d.digest();
}

/** Lower-case hex, the global hash format of EndTransfer (§10.3). */
export function digestHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Case-insensitive comparison of two hex global hashes, as the Java receiver does. */
export function sameHexDigest(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

interface Hasher {
  update(data: Uint8Array): unknown;
  digest(): Buffer;
}

class ResettingDigest implements R66Digest {
  private hash: Hasher;
  constructor(readonly algorithm: DigestAlgorithm, private readonly make: () => Hasher | Hash) {
    this.hash = make();
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  digest(): Buffer {
    const out = this.hash.digest();
    this.hash = this.make();
    return out;
  }
}

class ChecksumDigest implements R66Digest {
  constructor(readonly algorithm: DigestAlgorithm, private readonly step: (data: Uint8Array, value: number) => number, private value: number) {}
  update(data: Uint8Array): void {
    this.value = this.step(data, this.value);
  }
  digest(): Buffer {
    return Buffer.from((this.value >>> 0).toString(8), 'ascii');
  }
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

const nativeCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 (IEEE), continuing from `value`. Node's zlib.crc32 when present (20.15+), else a table. */
export function crc32(data: Uint8Array, value = 0): number {
  if (nativeCrc32) return nativeCrc32(data, value >>> 0);
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = (CRC_TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

/** Adler-32, continuing from `value` (start with 1). */
export function adler32(data: Uint8Array, value = 1): number {
  let a = value & 0xffff;
  let b = (value >>> 16) & 0xffff;
  // 5552 is the largest run whose sums cannot overflow 2^32 before the modulo (zlib's NMAX).
  for (let i = 0; i < data.length; ) {
    const stop = Math.min(i + 5552, data.length);
    for (; i < stop; i++) {
      a += data[i] as number;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** MD2 S-box (RFC 1319), digits of pi. */
const PI_SUBST = Buffer.from(
  '292e43c9a2d87c013d3654a1ecf0061362a705f3c0c7738c98932bd9bc4c82ca1e9b573cfdd4e01667426f188a17e512be4ec4d6da9ede49a0fbf58ebb2fee7a' +
    'a968799115b2073f94c210890b225f21807f5d9a5a903227353ecce7bff79703ff1930b348a5b5d1d75e922aac56aac64fb838d296a47db676fc6be29c7404f1' +
    '459d705964718720865bcf65e62da8021b6025adaeb0b9f61c46616934407e0f5547a323dd51af3ac35cf9cebac5ea262c530d6e85288409d3dfcdf441814d52' +
    '6adc37c86cc1abfa24e17b080cbdb14a7888958be363e86de9cbd5fe3b001d39f2efb70e6658d0e4a67772f8eb754b0a314450b48fed1f1adb998d339f118314',
  'hex',
);

/** MD2 (RFC 1319) in TypeScript: OpenSSL 3 only offers it through the legacy provider. */
class Md2 implements Hasher {
  private readonly state = new Uint8Array(48);
  private readonly checksum = new Uint8Array(16);
  private readonly buffer = new Uint8Array(16);
  private count = 0;

  update(data: Uint8Array): this {
    for (let i = 0; i < data.length; i++) {
      this.buffer[this.count++] = data[i] as number;
      if (this.count === 16) {
        this.block(this.buffer);
        this.count = 0;
      }
    }
    return this;
  }

  digest(): Buffer {
    const pad = 16 - this.count;
    this.update(new Uint8Array(pad).fill(pad));
    this.update(Uint8Array.from(this.checksum));
    return Buffer.from(this.state.subarray(0, 16));
  }

  private block(block: Uint8Array): void {
    const x = this.state;
    let l = this.checksum[15] as number;
    for (let j = 0; j < 16; j++) {
      const b = block[j] as number;
      x[16 + j] = b;
      x[32 + j] = b ^ (x[j] as number);
      l = (this.checksum[j] as number) ^ (PI_SUBST[b ^ l] as number);
      this.checksum[j] = l;
    }
    let t = 0;
    for (let j = 0; j < 18; j++) {
      for (let k = 0; k < 48; k++) {
        t = (x[k] as number) ^ (PI_SUBST[t] as number);
        x[k] = t;
      }
      t = (t + j) & 0xff;
    }
  }
}
