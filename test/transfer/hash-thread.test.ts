/**
 * The global hash on a hashing thread (src/transfer/hash/): the same bytes as Node's hash on this
 * thread, whatever the pieces; a bounded amount on the thread at a time; a failure on the thread
 * fails the hash, not the process; and the choice between the two kinds.
 */
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Digest } from '../../src/model/digest.js';
import { EnvSettingError } from '../../src/config/env-flag.js';
import { createGlobalHash, hashThreadFrom, InlineGlobalHash, OFF_THREAD_MIN_BYTES } from '../../src/transfer/hash/global-hash.js';
import { OffThreadHash } from '../../src/transfer/hash/off-thread-hash.js';

const MiB = 1 << 20;

/** Feeds `data` to `hash` in pieces of varied sizes (1 byte to 3 MiB), waiting for room as the data loops do. */
async function feed(hash: { update(d: Uint8Array): void; room(): Promise<void> | null }, data: Buffer): Promise<void> {
  const pieces = [1, 7, 65_536, 1, 3 * MiB, 200_000, MiB - 1, MiB, MiB + 1];
  let at = 0;
  for (let i = 0; at < data.length; i++) {
    const n = Math.min(pieces[i % pieces.length] as number, data.length - at);
    // A buffer the caller reuses at once, as the frame pool does: the hash must have copied it.
    const piece = Buffer.from(data.subarray(at, at + n));
    hash.update(piece);
    piece.fill(0xee);
    at += n;
    await hash.room();
  }
}

describe('the global hash on a hashing thread', () => {
  for (const [algorithm, name] of [[Digest.SHA512, 'sha512'], [Digest.SHA256, 'sha256'], [Digest.MD5, 'md5'], [Digest.SHA1, 'sha1'], [Digest.SHA384, 'sha384']] as const) {
    it(`${algorithm.wireName}: the same digest as Node's on this thread, fed in pieces`, async () => {
      const data = randomBytes(11 * MiB + 12_345);
      const hash = new OffThreadHash(name);
      await feed(hash, data);
      expect((await hash.digest()).toString('hex')).toBe(createHash(name).update(data).digest('hex'));
    });
  }

  it('of nothing is the digest of nothing', async () => {
    const hash = new OffThreadHash('sha512');
    expect((await hash.digest()).toString('hex')).toBe(createHash('sha512').digest('hex'));
  });

  it('many hashes at once, each of its own bytes', async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => randomBytes(2 * MiB + i));
    const hashes = inputs.map(() => new OffThreadHash('sha256'));
    await Promise.all(hashes.map((h, i) => feed(h, inputs[i] as Buffer)));
    const digests = await Promise.all(hashes.map((h) => h.digest()));
    expect(digests.map((d) => d.toString('hex'))).toEqual(inputs.map((d) => createHash('sha256').update(d).digest('hex')));
  });

  it('asks the data loop to wait once 2 MiB are on their way, and lets it go on once they are hashed', async () => {
    const hash = new OffThreadHash('sha512');
    hash.update(randomBytes(1.5 * MiB));
    expect(hash.room()).toBeNull();
    hash.update(randomBytes(MiB));
    const room = hash.room();
    expect(room).toBeInstanceOf(Promise);
    await room;
    await hash.digest();
  });

  it('a failure on the thread fails the hash with a clear error, and the next hash works', async () => {
    const bad = new OffThreadHash('no-such-hash');
    bad.update(randomBytes(2 * MiB));
    await expect(bad.digest()).rejects.toThrow(/the global hash could not be computed: .*/);
    const good = new OffThreadHash('sha512');
    good.update(Buffer.from('abc'));
    expect((await good.digest()).toString('hex')).toBe(createHash('sha512').update('abc').digest('hex'));
  });

  it('a discarded hash takes no digest; a finished one takes no more data', async () => {
    const dropped = new OffThreadHash('sha256');
    dropped.update(randomBytes(MiB + 1));
    dropped.discard();
    await expect(dropped.digest()).rejects.toThrow(/already finished/);
    const done = new OffThreadHash('sha256');
    await done.digest();
    expect(() => done.update(Buffer.from('late'))).toThrow(/already finished/);
  });
});

describe('which global hash a transfer gets', () => {
  it('a hashing thread for a large file hashed by OpenSSL, when allowed; this thread otherwise', () => {
    const kinds = (algorithm: typeof Digest.SHA512, size: number, allowed: boolean): string => {
      const h = createGlobalHash(algorithm, size, allowed);
      h.discard();
      return h instanceof OffThreadHash ? 'thread' : h instanceof InlineGlobalHash ? 'inline' : 'other';
    };
    expect(kinds(Digest.SHA512, OFF_THREAD_MIN_BYTES, true)).toBe('thread');
    expect(kinds(Digest.MD5, 10 * OFF_THREAD_MIN_BYTES, true)).toBe('thread');
    expect(kinds(Digest.SHA512, OFF_THREAD_MIN_BYTES - 1, true)).toBe('inline');
    // Unknown size (-1), SVC_R66_HASH_THREAD=0, and the checksums computed by our own code.
    expect(kinds(Digest.SHA512, -1, true)).toBe('inline');
    expect(kinds(Digest.SHA512, OFF_THREAD_MIN_BYTES, false)).toBe('inline');
    expect(kinds(Digest.CRC32, OFF_THREAD_MIN_BYTES, true)).toBe('inline');
    expect(kinds(Digest.MD2, OFF_THREAD_MIN_BYTES, true)).toBe('inline');
  });

  it('is on with more than two cores or SVC_R66_HASH_THREAD=1, off with 0; another value is refused, naming the variable', () => {
    expect(hashThreadFrom({}, 4)).toBe(true);
    expect(hashThreadFrom({}, 2)).toBe(false);
    expect(hashThreadFrom({ SVC_R66_HASH_THREAD: '1' }, 2)).toBe(true);
    expect(hashThreadFrom({ SVC_R66_HASH_THREAD: '1' })).toBe(true);
    expect(hashThreadFrom({ SVC_R66_HASH_THREAD: '0' })).toBe(false);
    expect(() => hashThreadFrom({ SVC_R66_HASH_THREAD: 'maybe' })).toThrow(EnvSettingError);
    expect(() => hashThreadFrom({ SVC_R66_HASH_THREAD: 'maybe' })).toThrow(/SVC_R66_HASH_THREAD must be 1 or 0/);
  });
});
