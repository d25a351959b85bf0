/**
 * A receiver whose database and work directory share a file system that fills up in the middle of
 * a transfer (issue 32, low item): its row was inserted, then the data write fails (ENOSPC) and so
 * does the write of the error (SQLite: "database or disk is full"). The row used to stay RUNNING
 * for ever beside a 0-byte work file. Now the transfer ends with the protocol's error, the engine
 * keeps the end and writes it once the database takes writes again: the row ends INERROR and names
 * the partial work file, which stays for a resume (docs/transfers.md).
 *
 * The small file system is a tmpfs (mounting needs root, as CI runs); elsewhere the file is skipped.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { addRules, closeHosts, introduce, makeHost, patternBytes, rule, type TestHost } from '../helpers/hosts.js';
import { waitFor } from '../helpers/wait.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('test/faults/full-disk-database.test.ts skipped: mounting a small tmpfs needs root (CI runs as root)');

describe.skipIf(!isRoot)('a receiver whose database and work directory fill up together', () => {
  let a: TestHost | undefined;
  let b: TestHost | undefined;
  let small = '';
  const mounts: string[] = [];

  beforeAll(async () => {
    small = await mkdtemp(path.join(tmpdir(), 'svc-full-db-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', small]);
    mounts.push(small);
    await mkdir(path.join(small, 'work'));
    a = await makeHost('hosta');
    b = await makeHost('hostb', { databaseFile: path.join(small, 'db.sqlite') });
    await introduce(a, b);
    // hostb's work directory for the rule: on the same small file system as its database.
    const work = path.join(b.home, 'small', 'work');
    await mkdir(work, { recursive: true });
    execFileSync('mount', ['--bind', path.join(small, 'work'), work]);
    mounts.unshift(work);
    await addRules([a, b], rule('fullwork', TransferMode.SENDMODE, { workPath: '/small/work' }));
  });

  afterAll(async () => {
    // The bind mount first (hostb's home is removed by its close), the tmpfs after the database closed.
    const [work, ...rest] = mounts.length > 1 ? mounts : [undefined, ...mounts];
    if (work !== undefined) execFileSync('umount', ['-l', work]);
    await closeHosts(a, b);
    for (const m of rest) if (m !== undefined) execFileSync('umount', ['-l', m]);
    if (small) await rm(small, { recursive: true, force: true });
  });

  it('the transfer fails with the disk error and the receiver\'s row ends INERROR once there is room', async () => {
    const [ha, hb] = [a as TestHost, b as TestHost];
    await writeFile(path.join(ha.dirs.out, 'big.bin'), patternBytes(2 << 20, 3));
    // The disk fills right after the receiver inserted its row: its data and its error cannot be written.
    const filler = path.join(small, 'filler');
    const runner = hb.store.runner;
    const insert = runner.insert.bind(runner);
    runner.insert = async (record) => {
      const result = await insert(record);
      const free = Number(execFileSync('df', ['--output=avail', '-B1', small], { encoding: 'utf8' }).split('\n')[1]);
      await writeFile(filler, Buffer.alloc(free)).catch(() => undefined);
      return result;
    };
    try {
      const out = await ha.engine.transfer({ partner: 'hostb', rule: 'fullwork', file: 'big.bin' });
      expect(out.code).toBe(ErrorCode.Internal);
      const ref = { specialId: out.record.specialId, requester: 'hosta', requested: 'hostb', ownerReq: 'hostb' };
      // Full: the row could not take the error.
      await expect(runner.updateRank(ref, 0)).rejects.toThrow(/full/);
      expect((await runner.get(ref))?.updatedInfo).toBe(UpdatedInfo.RUNNING);
      await rm(filler);
      const row = await waitFor(async () => {
        const r = await runner.get(ref);
        return r?.updatedInfo === UpdatedInfo.INERROR ? r : undefined;
      }, { what: 'hostb\'s row in error', timeoutMs: 10_000 });
      expect(row.infoStatus).toBe(ErrorCode.Internal);
      // The partial work file stays where the row names it, for a resume.
      expect((await stat(row.filename)).isFile()).toBe(true);
      expect(hb.engine.unrecordedEnds.size).toBe(0);
    } finally {
      runner.insert = insert;
      await rm(filler, { force: true });
    }
  });
});
