/**
 * The global hash is computed in pieces on both sides: the requester hashes its file's first read
 * batch while it waits for the Request answer and the rest after each batch went out; the receiver
 * hashes blocks after their writes were queued, a few at a time. Whatever the file's size against
 * the read batch (256 KiB) and the block size, both sides must hash every byte once, in order: a
 * block missed or hashed twice on one side fails the transfer with M.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Digest } from '../../src/model/digest.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { OFF_THREAD_MIN_BYTES } from '../../src/transfer/hash/global-hash.js';
import { offThreadHashCounters } from '../../src/transfer/hash/off-thread-hash.js';
import { receivedIn, STORAGES } from '../helpers/host-files.js';
import { patternBytes, sha256PairForBlock } from './harness.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const KiB = 1024;

// The last ones are hashed on a hashing thread by both sides (hash/global-hash.ts OFF_THREAD_MIN_BYTES).
const SIZES = [1, 64 * KiB, 256 * KiB - 1, 256 * KiB, 256 * KiB + 1, 1024 * KiB + 7, 3 * 256 * KiB + 100, OFF_THREAD_MIN_BYTES, OFF_THREAD_MIN_BYTES + 5 * 1024 * KiB + 3];

describe.each(STORAGES)('the global hash covers every byte once, whatever the batches (%s storage)', (storage) => {
  // The hashing thread on, whatever the machine's cores (its default needs more than two).
  const hosts = sha256PairForBlock(storage, { hashThread: true });

  for (const size of SIZES) {
    it(`${size} bytes sent by the requester (its first batch hashed while it awaits the answer)`, async () => {
      const content = patternBytes(size, size % 251);
      await hosts.a.files.write(path.join(hosts.a.dirs.out, `s${size}.bin`), content);
      const threadHashes = offThreadHashCounters.hashes;
      const out = await hosts.a.engine.transfer({ partner: 'hostb', rule: 'send', file: `s${size}.bin` });
      expect(out.message).toBe('');
      expect(out.code).toBe(ErrorCode.CompleteOk);
      // Both sides on a hashing thread from OFF_THREAD_MIN_BYTES on, none below.
      expect(offThreadHashCounters.hashes - threadHashes).toBe(size >= OFF_THREAD_MIN_BYTES ? 2 : 0);
      expect(sha(await receivedIn(hosts.b.files, hosts.b.dirs.in, `s${size}.bin`))).toBe(sha(content));
    });

    it(`${size} bytes sent by the requested host to the requester`, async () => {
      const content = patternBytes(size, (size + 1) % 251);
      await hosts.b.files.write(path.join(hosts.b.dirs.out, `r${size}.bin`), content);
      const threadHashes = offThreadHashCounters.hashes;
      const out = await hosts.a.engine.transfer({ partner: 'hostb', rule: 'recv', file: `r${size}.bin` });
      expect(out.message).toBe('');
      expect(out.code).toBe(ErrorCode.CompleteOk);
      expect(offThreadHashCounters.hashes - threadHashes).toBe(size >= OFF_THREAD_MIN_BYTES ? 2 : 0);
      expect(sha(await hosts.a.files.read(out.file!))).toBe(sha(content));
    });
  }

  it('with per-block digests and 16 KiB blocks (sixteen blocks per read batch)', async () => {
    const content = patternBytes(700_001, 3);
    await hosts.a.files.write(path.join(hosts.a.dirs.out, 'm.bin'), content);
    const out = await hosts.a.engine.transfer({ partner: 'hostb', rule: 'smd5', file: 'm.bin', blockSize: 16 * KiB });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(sha(await receivedIn(hosts.b.files, hosts.b.dirs.in, 'm.bin'))).toBe(sha(content));
  });

  for (const size of [900_000, OFF_THREAD_MIN_BYTES + 1]) {
    it(`a hash that differs is still found in a file of ${size} bytes`, async () => {
      // A announced SHA-256 on the connection; hashing with SHA-1 now, its hash cannot match B's.
      hosts.a.identity.digest = Digest.SHA1;
      try {
        await hosts.a.files.write(path.join(hosts.a.dirs.out, `bad${size}.bin`), patternBytes(size, 5));
        const out = await hosts.a.engine.transfer({ partner: 'hostb', rule: 'send', file: `bad${size}.bin` });
        expect(out.code).toBe(ErrorCode.MD5Error);
      } finally {
        hosts.a.identity.digest = Digest.SHA256;
      }
    });
  }
});
