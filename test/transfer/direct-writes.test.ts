/**
 * Large received files are written around the page cache (O_DIRECT, direct-writer.ts): runs copied
 * into aligned buffers, the last short run padded to 4096 bytes and the file cut back to its size
 * before the final sync. Whatever the size against that alignment and the block size, the file
 * received must be the file sent, byte for byte, in both directions; a block size that is not a
 * multiple of 4096 (or a file system that refuses O_DIRECT) is written buffered, as before.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { EnvSettingError } from '../../src/config/env-flag.js';
import { DIRECT_MIN_BYTES, DirectWriter, directWriteCounters, directWritesFrom, wantsDirectWrites } from '../../src/transfer/file/direct-writer.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, patternBytes, receivedContent, resumeWithScheduler, rule, sha256PairForBlock, type TestHost } from './harness.js';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const MiB = 1 << 20;

/** Whether the file system of `dir` takes O_DIRECT (tmpfs does not): checked apart from the code under test. */
function takesDirect(dir: string): boolean {
  const probe = path.join(dir, 'probe');
  try {
    closeSync(openSync(probe, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_DIRECT));
    return true;
  } catch {
    return false;
  }
}

describe('DirectWriter', () => {
  let dir: string;
  let direct: boolean;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-direct-'));
    direct = takesDirect(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('qualifies only new files of at least 16 MiB with a block size multiple of 4096', () => {
    expect(wantsDirectWrites(true, DIRECT_MIN_BYTES, 65536)).toBe(true);
    expect(wantsDirectWrites(false, DIRECT_MIN_BYTES, 65536)).toBe(false);
    expect(wantsDirectWrites(true, DIRECT_MIN_BYTES - 1, 65536)).toBe(false);
    expect(wantsDirectWrites(true, DIRECT_MIN_BYTES, 65000)).toBe(false);
  });

  it('is on unless SVC_R66_DIRECT_WRITES says 0; another value is refused, naming the variable', () => {
    expect(directWritesFrom({})).toBe(true);
    expect(directWritesFrom({ SVC_R66_DIRECT_WRITES: 'on' })).toBe(true);
    expect(directWritesFrom({ SVC_R66_DIRECT_WRITES: '0' })).toBe(false);
    expect(() => directWritesFrom({ SVC_R66_DIRECT_WRITES: 'sometimes' })).toThrow(EnvSettingError);
    expect(() => directWritesFrom({ SVC_R66_DIRECT_WRITES: 'sometimes' })).toThrow(/SVC_R66_DIRECT_WRITES must be 1 or 0/);
  });

  it('writes unaligned buffers at aligned positions and pads a short last run with zeros', async () => {
    const file = path.join(dir, 'w.bin');
    await writeFile(file, '');
    const writer = await DirectWriter.open(file);
    if (!direct) {
      expect(writer).toBeNull();
      return;
    }
    if (writer === null) throw new Error('O_DIRECT is available here, yet no writer was opened');
    const data = patternBytes(2 * MiB + 1000, 9);
    // Views at odd offsets of a larger buffer: never aligned in memory.
    const backing = Buffer.concat([Buffer.alloc(3), data]);
    const view = (from: number, to: number): Buffer => backing.subarray(3 + from, 3 + to);
    expect(await writer.write([view(0, 300_000), view(300_000, MiB)], 0, MiB)).toBe(true);
    expect(await writer.write([view(MiB, 2 * MiB)], MiB, MiB)).toBe(true);
    expect(writer.padded).toBe(false);
    expect(await writer.write([view(2 * MiB, 2 * MiB + 1000)], 2 * MiB, 1000)).toBe(true);
    expect(writer.padded).toBe(true);
    // A position off the alignment is left to the buffered path, untouched.
    expect(await writer.write([view(0, 4096)], 100, 4096)).toBe(false);
    await writer.close();
    const got = await readFile(file);
    expect(got.length).toBe(2 * MiB + 4096);
    expect(got.subarray(0, data.length).equals(data)).toBe(true);
    expect(got.subarray(data.length).every((b) => b === 0)).toBe(true);
  });

  it('holds a staging buffer for one write only: more files than buffers go direct, a write that finds none goes buffered', async () => {
    const files = Array.from({ length: 40 }, (_, i) => path.join(dir, `many-${i}.bin`));
    await Promise.all(files.map((f) => writeFile(f, '')));
    const writers = await Promise.all(files.map((f) => DirectWriter.open(f)));
    if (!direct) {
      expect(writers.every((w) => w === null)).toBe(true);
      return;
    }
    const open = writers.filter((w): w is DirectWriter => w !== null);
    // Every file gets a writer, however many are open (the buffers were once held per file: 32).
    expect(open.length).toBe(40);
    const data = patternBytes(256 * 1024, 5);
    // One after another: each write gives its buffer back, so all 40 go direct.
    for (const w of open) expect(await w.write([data], 0, data.length)).toBe(true);
    // All at once: 32 buffers, so 32 go direct and the 8 others are left to the caller (false).
    const results = await Promise.all(open.map((w) => w.write([data], 256 * 1024, data.length)));
    expect(results.filter((r) => r).length).toBe(32);
    expect(results.filter((r) => !r).length).toBe(8);
    // A writer left without a buffer once is not failed: its next run goes direct again.
    const declined = open.filter((_, i) => !results[i]);
    for (const w of declined) expect(await w.write([data], 256 * 1024, data.length)).toBe(true);
    await Promise.all(open.map((w) => w.close()));
    for (const f of files) expect((await readFile(f)).equals(Buffer.concat([data, data]))).toBe(true);
  });
});

describe('files received with direct writes', () => {
  const hosts = sha256PairForBlock();

  const cases: Array<{ name: string; size: number; rule: 'send' | 'recv' | 'smd5'; blockSize?: number; goesDirect: boolean }> = [
    { name: 'a size off the 4096 alignment, sent by the requester', size: DIRECT_MIN_BYTES + 1234, rule: 'send', goesDirect: true },
    { name: 'a size off the 4096 alignment, pulled by the requester', size: DIRECT_MIN_BYTES + 77, rule: 'recv', goesDirect: true },
    { name: 'a size that is a whole number of blocks', size: DIRECT_MIN_BYTES, rule: 'send', goesDirect: true },
    { name: 'an aligned size that is not a whole number of blocks, with block digests', size: DIRECT_MIN_BYTES + 8192, rule: 'smd5', goesDirect: true },
    { name: 'a block size that is not a multiple of 4096 (written buffered)', size: DIRECT_MIN_BYTES + 5, rule: 'send', blockSize: 65000, goesDirect: false },
    { name: 'a size just below the threshold (one synced write through the page cache)', size: DIRECT_MIN_BYTES - 1, rule: 'send', goesDirect: false },
    { name: 'a file of several MiB, several runs of 1 MiB, the last one short', size: 3 * MiB + 4097, rule: 'send', goesDirect: true },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const { a, b } = hosts;
      const name = `d${c.size}-${c.rule}-${c.blockSize ?? 0}.bin`;
      const content = patternBytes(c.size, c.size % 251);
      const pulled = c.rule === 'recv';
      await writeFile(path.join((pulled ? b : a).dirs.out, name), content);
      const before = directWriteCounters.bytes;
      const writesBefore = directWriteCounters.writes;
      const out = await a.engine.transfer({ partner: 'hostb', rule: c.rule, file: name, blockSize: c.blockSize });
      expect(out.message).toBe('');
      expect(out.code).toBe(ErrorCode.CompleteOk);
      const got = pulled ? await readFile(out.file!) : await receivedContent(b.dirs.in, name);
      expect(got.length).toBe(c.size);
      expect(sha(got)).toBe(sha(content));
      const receivingDir = pulled ? path.dirname(out.file!) : b.dirs.in;
      const wentDirect = directWriteCounters.bytes - before;
      if (c.goesDirect && takesDirect(receivingDir)) {
        expect(wentDirect).toBe(c.size);
        // A file of at most 1 MiB waits for its last block and leaves in one write, however its
        // blocks arrived (each one a device write of its own, before).
        if (c.size <= MiB) expect(directWriteCounters.writes - writesBefore).toBe(1);
      } else expect(wentDirect).toBe(0);
    });
  }
});

describe('SVC_R66_DIRECT_WRITES=0', () => {
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    const before = process.env.SVC_R66_DIRECT_WRITES;
    process.env.SVC_R66_DIRECT_WRITES = '0';
    try {
      ({ a, b } = await makeHostPair());
    } finally {
      if (before === undefined) delete process.env.SVC_R66_DIRECT_WRITES;
      else process.env.SVC_R66_DIRECT_WRITES = before;
    }
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
  });
  afterAll(() => closeHosts(a, b));

  it('writes a large file through the page cache, as the original does', async () => {
    const content = patternBytes(DIRECT_MIN_BYTES + 999, 7);
    await writeFile(path.join(a.dirs.out, 'off.bin'), content);
    const before = directWriteCounters.bytes;
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'off.bin' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(directWriteCounters.bytes).toBe(before);
    expect(sha(await receivedContent(b.dirs.in, 'off.bin'))).toBe(sha(content));
  });
});

describe('a large file received with direct writes, stopped, then resumed', () => {
  let a: TestHost;
  let b: TestHost;

  beforeAll(async () => {
    ({ a, b } = await makeHostPair());
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
  });
  afterAll(() => closeHosts(a, b));

  it('is whole after the restart, which resumes from the rank kept', async () => {
    // Large enough (over 40 blocks) for the stop to land in the middle of the data.
    const size = Math.max(DIRECT_MIN_BYTES, 16 * MiB) + 3 * 65536 + 1234;
    const content = patternBytes(size, 11);
    await writeFile(path.join(a.dirs.out, 'resumed.bin'), content);
    const before = directWriteCounters.bytes;
    a.engine.bandwidth.set({ writeGlobal: 8_000_000 });
    const pending = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'resumed.bin' });
    const started = await waitFor(async () => (await b.store.runner.list()).find((r) => r.rank > 40));
    const ref = { specialId: started.specialId, requester: 'hosta', requested: 'hostb' };
    expect(await a.engine.stop(ref)).toMatchObject({ code: ErrorCode.CompleteOk });
    expect((await pending).code).toBe(ErrorCode.StoppedTransfer);
    await waitFor(async () => (await b.row(ref))?.updatedInfo === UpdatedInfo.INERROR);
    if (takesDirect(b.dirs.work)) expect(directWriteCounters.bytes).toBeGreaterThan(before);
    // The resumed attempt reopens the work file (not a new one): written through the page cache.
    a.engine.bandwidth.set({ writeGlobal: 0 });
    const { done, resumedFrom } = await resumeWithScheduler(a, ref);
    expect(done.infoStatus).toBe(ErrorCode.CompleteOk);
    const got = await receivedContent(b.dirs.in, 'resumed.bin');
    expect(got.length).toBe(size);
    expect(sha(got)).toBe(sha(content));
    expect(resumedFrom[0]).toBeGreaterThan(0);
  });
});
