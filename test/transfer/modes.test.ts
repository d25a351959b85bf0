import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIGEST_ALGORITHMS, Digest } from '../../src/model/digest.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { TaskStep, UpdatedInfo } from '../../src/model/transfer.js';
import { STORAGES } from '../helpers/host-files.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

// Both storages behind the seam (src/transfer/file/storage.ts): the hosts' file systems, and files
// in memory, where the receiver and placement can only have worked through the seam.
describe.each(STORAGES)('transfers between two hosts, every mode (%s storage)', (storage) => {
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    ({ a, b } = await makeHostPair({ storage }, { storage }));
    for (let mode = 1; mode <= 8; mode++) await addRules([a, b], rule(`m${mode}`, mode));
  });
  afterAll(() => closeHosts(a, b));

  for (let mode = TransferMode.SENDMODE; mode <= TransferMode.RECVMD5THROUGHMODE; mode++) {
    it(`mode ${TransferMode[mode]} moves the file and completes both rows`, async () => {
      const isSend = [1, 3, 5, 7].includes(mode);
      const content = patternBytes(300_000 + mode, mode);
      const name = `file-${mode}.bin`;
      const sender = isSend ? a : b;
      const receiver = isSend ? b : a;
      await sender.files.write(path.join(sender.dirs.out, name), content);
      const outcome = await a.engine.transfer({ partner: 'hostb', rule: `m${mode}`, file: name, blockSize: 65536 });
      expect(outcome.message).toBe('');
      expect(outcome.code).toBe(ErrorCode.CompleteOk);
      const mine = outcome.record;
      expect(mine).toMatchObject({ globalStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE, infoStatus: ErrorCode.CompleteOk, retrieveMode: isSend, rank: 5 });
      // The partner's row completes when its last packet arrives, just after ours.
      const theirs = await waitFor(async () => {
        const r = await b.row({ specialId: mine.specialId, requester: 'hosta', requested: 'hostb' });
        return r?.updatedInfo === UpdatedInfo.DONE ? r : undefined;
      });
      expect(theirs).toMatchObject({ globalStep: TaskStep.ALLDONETASK, updatedInfo: UpdatedInfo.DONE, stepStatus: ErrorCode.CompleteOk, retrieveMode: !isSend, mode });
      const files = await receiver.files.list(receiver.dirs.in);
      const got = files.find((f) => f.endsWith(`_${name}`));
      expect(got).toBeDefined();
      const received = await receiver.files.read(path.join(receiver.dirs.in, got!));
      expect(sha(received)).toBe(sha(content));
      const receiverRow = isSend ? theirs! : mine;
      expect(receiverRow.filename).toBe(path.join(receiver.dirs.in, got!));
      expect(receiverRow.isMoved).toBe(true);
      expect(await receiver.files.list(receiver.dirs.work)).toEqual([]);
    });
  }

  it('moves an empty file (no Data packet) and a file of exactly one block', async () => {
    await a.files.write(path.join(a.dirs.out, 'empty.txt'), '');
    const empty = await a.engine.transfer({ partner: 'hostb', rule: 'm1', file: 'empty.txt' });
    expect(empty.code).toBe(ErrorCode.CompleteOk);
    expect(empty.record.rank).toBe(0);
    await a.files.write(path.join(a.dirs.out, 'one.bin'), patternBytes(1000));
    const one = await a.engine.transfer({ partner: 'hostb', rule: 'm3', file: 'one.bin', blockSize: 1000 });
    expect(one.code).toBe(ErrorCode.CompleteOk);
    expect(one.record.rank).toBe(1);
  });

  it('takes the block size the requested host caps it to', async () => {
    await a.files.write(path.join(a.dirs.out, 'big-block.bin'), patternBytes(200_000));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'm1', file: 'big-block.bin', blockSize: 1 << 20 });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(out.record.blockSize).toBe(65536);
    expect(out.record.rank).toBe(4);
  });
});

describe('digests and compression', () => {
  for (const algo of DIGEST_ALGORITHMS) {
    it(`per-block and global hash with ${algo.wireName}`, async () => {
      const { a, b } = await makeHostPair({ digest: algo }, { digest: algo });
      try {
        await addRules([a, b], rule('smd5', TransferMode.SENDMD5MODE), rule('rmd5', TransferMode.RECVMD5MODE));
        const content = patternBytes(150_000, 7);
        await writeFile(path.join(a.dirs.out, 'x.bin'), content);
        await writeFile(path.join(b.dirs.out, 'y.bin'), content);
        const send = await a.engine.transfer({ partner: 'hostb', rule: 'smd5', file: 'x.bin', blockSize: 16384 });
        expect(send.code).toBe(ErrorCode.CompleteOk);
        const recv = await a.engine.transfer({ partner: 'hostb', rule: 'rmd5', file: 'y.bin', blockSize: 16384 });
        expect(recv.code).toBe(ErrorCode.CompleteOk);
        expect(sha(await readFile(recv.file!))).toBe(sha(content));
      } finally {
        await closeHosts(a, b);
      }
    });
  }

  it('different digests on each side fail every block with M (as the original)', async () => {
    const { a, b } = await makeHostPair({ digest: Digest.MD5 }, { digest: Digest.SHA256 });
    try {
      await addRules([a, b], rule('smd5', TransferMode.SENDMD5MODE));
      await writeFile(path.join(a.dirs.out, 'x.bin'), patternBytes(10_000));
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'smd5', file: 'x.bin' });
      // A computes with B's announced algorithm, B checks with A's: mismatch.
      expect(out.code).toBe(ErrorCode.MD5Error);
    } finally {
      await closeHosts(a, b);
    }
  });

  it('compresses blocks with zstd when both allow it and the information asks for it', async () => {
    const { a, b } = await makeHostPair({ compression: true }, { compression: true });
    try {
      await addRules([a, b], rule('s', TransferMode.SENDMD5MODE), rule('r', TransferMode.RECVMODE));
      const content = Buffer.from('compressible line of text\n'.repeat(20_000));
      await writeFile(path.join(a.dirs.out, 'c.txt'), content);
      await writeFile(path.join(b.dirs.out, 'c.txt'), content);
      const sent: number[] = [];
      const conn = await a.pool.connection((await a.store.hosts.get('hostb'))!);
      const write = conn.socket.write.bind(conn.socket);
      conn.socket.write = ((chunk: Buffer, ...rest: never[]) => {
        sent.push(chunk.length);
        return write(chunk, ...rest);
      }) as typeof conn.socket.write;
      const out = await a.engine.transfer({ partner: 'hostb', rule: 's', file: 'c.txt', fileInfo: 'please #COMPRESS#' });
      expect(out.code).toBe(ErrorCode.CompleteOk);
      expect(sent.reduce((x, y) => x + y, 0)).toBeLessThan(content.length / 10);
      const back = await a.engine.transfer({ partner: 'hostb', rule: 'r', file: 'c.txt', fileInfo: '#COMPRESS#' });
      expect(back.code).toBe(ErrorCode.CompleteOk);
      expect(sha(await readFile(back.file!))).toBe(sha(content));
    } finally {
      await closeHosts(a, b);
    }
  });
});
