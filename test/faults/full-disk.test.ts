/**
 * A full work or receive directory (issue 21 item 5): the transfer ends with the protocol's error on
 * both hosts, the partial work file stays for a resume, and the hosts keep working: the next transfer
 * into the same full directory ends the same way (it once hung the whole process, at 100% CPU, when
 * the write window restarted its pump after a failure), and a transfer elsewhere succeeds. Covered
 * on the direct-write path (O_DIRECT, files of 128 KiB or more), the buffered path (a block size that
 * is not a multiple of 4096) and the synced small-file path, after an earlier large transfer.
 *
 * The full file system is a 20 MiB tmpfs: mounting it needs root (CI runs as root); elsewhere the
 * file is skipped with a printed notice.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { directWriteCounters } from '../../src/transfer/file/direct-writer.js';
import { addRules, closeHosts, makeHostPair, patternBytes, receivedContent, resumeWithScheduler, rule, type TestHost } from '../helpers/hosts.js';

const MiB = 1 << 20;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('test/faults/full-disk.test.ts skipped: mounting a small tmpfs needs root (CI runs as root)');

/** Fills the file system of `dir` but `leave` bytes with a file named `filler`. */
async function fill(dir: string, leave: number): Promise<void> {
  const free = Number(execFileSync('df', ['--output=avail', '-B1', dir], { encoding: 'utf8' }).split('\n')[1]);
  await writeFile(path.join(dir, 'filler'), Buffer.alloc(Math.max(0, free - leave)));
}

describe.skipIf(!isRoot)('a full work or receive directory', () => {
  let a: TestHost;
  let b: TestHost;
  /** hostb's tmpfs: `work` and `in` below it serve the rules `fullwork` and `fullin`. */
  let small: string;
  let mounted = false;

  beforeAll(async () => {
    ({ a, b } = await makeHostPair());
    small = path.join(b.home, 'small');
    await mkdir(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=20m', 'tmpfs', small]);
    mounted = true;
    await mkdir(path.join(small, 'work'));
    await mkdir(path.join(small, 'in'));
    await addRules([a, b],
      rule('send', TransferMode.SENDMODE),
      rule('fullwork', TransferMode.SENDMODE, { workPath: '/small/work', recvPath: '/small/in' }),
      rule('fullin', TransferMode.SENDMODE, { recvPath: '/small/in' }));
    // An earlier large transfer into hostb's ordinary directories (direct writes, staging buffer used).
    await writeFile(path.join(a.dirs.out, 'large.bin'), patternBytes(24 * MiB, 5));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'large.bin' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
  });

  afterAll(async () => {
    if (mounted) execFileSync('umount', ['-l', small]);
    await closeHosts(a, b);
  });

  const paths = [
    { name: 'direct writes', size: 5 * MiB, blockSize: undefined },
    { name: 'buffered writes', size: 5 * MiB, blockSize: 65000 },
    { name: 'one synced small write', size: 100_000, blockSize: undefined },
  ];
  for (const p of paths) {
    it(`ends with the protocol's error on both hosts, twice in a row (${p.name})`, async () => {
      const name = `w-${p.size}-${p.blockSize ?? 0}.bin`;
      await writeFile(path.join(a.dirs.out, name), patternBytes(p.size, 7));
      await fill(small, 64 << 10);
      try {
        for (let attempt = 0; attempt < 2; attempt++) {
          const out = await a.engine.transfer({ partner: 'hostb', rule: 'fullwork', file: name, blockSize: p.blockSize });
          expect(out.code).toBe(ErrorCode.Internal);
          expect(out.message).toMatch(/No space left/);
          const ref = { specialId: out.record.specialId, requester: 'hosta', requested: 'hostb' };
          const theirs = await b.store.runner.get({ ...ref, ownerReq: 'hostb' });
          expect(theirs?.updatedInfo).toBe(UpdatedInfo.INERROR);
          expect(theirs?.infoStatus).toBe(ErrorCode.Internal);
          // The partial work file stays where the row names it, for a resume.
          expect((await stat(theirs!.filename)).isFile()).toBe(true);
        }
      } finally {
        await rm(path.join(small, 'filler'));
        for (const f of await readdir(path.join(small, 'work'))) await rm(path.join(small, 'work', f));
      }
    });
  }

  it('resumes the transfer once there is room again (direct writes)', async () => {
    const content = patternBytes(6 * MiB, 11);
    await writeFile(path.join(a.dirs.out, 'resume.bin'), content);
    // Room for about half of the file: the first runs go direct, then the disk is full.
    await fill(small, 3 * MiB);
    const before = directWriteCounters.bytes;
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'fullwork', file: 'resume.bin' });
    expect(out.code).toBe(ErrorCode.Internal);
    expect(directWriteCounters.bytes).toBeGreaterThan(before);
    await rm(path.join(small, 'filler'));
    const ref = { specialId: out.record.specialId, requester: 'hosta', requested: 'hostb' };
    const { done } = await resumeWithScheduler(a, ref);
    expect(done.infoStatus).toBe(ErrorCode.CompleteOk);
    expect(sha(await receivedContent(path.join(small, 'in'), 'resume.bin'))).toBe(sha(content));
    for (const f of await readdir(path.join(small, 'in'))) await rm(path.join(small, 'in', f));
  });

  it('a full receive directory ends the transfer in error on both hosts and keeps the work file', async () => {
    await writeFile(path.join(a.dirs.out, 'in.bin'), patternBytes(2 * MiB, 13));
    await fill(small, 64 << 10);
    try {
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'fullin', file: 'in.bin' });
      expect(out.code).toBe(ErrorCode.FinalOp);
      const theirs = await b.store.runner.get({ specialId: out.record.specialId, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb' });
      expect(theirs?.updatedInfo).toBe(UpdatedInfo.INERROR);
      expect(theirs?.infoStatus).toBe(ErrorCode.FinalOp);
      // No partial copy in the receive directory; the whole file still in the work directory.
      expect((await readdir(path.join(small, 'in'))).filter((f) => f !== 'filler')).toEqual([]);
      expect((await stat(theirs!.filename)).size).toBe(2 * MiB);
    } finally {
      await rm(path.join(small, 'filler'));
    }
  });

  it('the hosts keep working: a transfer elsewhere succeeds after the failures', async () => {
    const content = patternBytes(3 * MiB, 17);
    await writeFile(path.join(a.dirs.out, 'after.bin'), content);
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'after.bin' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(sha(await readFile(path.join(b.dirs.in, path.basename(out.record.filename))).catch(() => receivedContent(b.dirs.in, 'after.bin')))).toBe(sha(content));
  });
});
