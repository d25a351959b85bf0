// Through modes (r66-protocol.md §4, modes 5-8) on the requester: the application's stream is the
// source (send-through) or the sink (recv-through); the requested host works with files as in the
// base mode. Real hosts on loopback, real files on the partner.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

/** A Readable giving `data` in chunks of uneven sizes (not aligned on blocks). */
function chunked(data: Buffer): Readable {
  const sizes = [1, 7000, 65536, 100_003, 3];
  return Readable.from((function* () {
    for (let at = 0, i = 0; at < data.length; i++) {
      const n = sizes[i % sizes.length]!;
      yield data.subarray(at, at + n);
      at += n;
    }
  })());
}

/** A Writable collecting what it gets, slowly enough to exercise back-pressure. */
function collector(): { stream: Writable; data(): Buffer; ended(): boolean } {
  const parts: Buffer[] = [];
  let done = false;
  const stream = new Writable({
    highWaterMark: 16384,
    write(chunk: Buffer, _enc, cb) {
      parts.push(Buffer.from(chunk));
      setImmediate(cb);
    },
    final(cb) {
      done = true;
      cb();
    },
  });
  return { stream, data: () => Buffer.concat(parts), ended: () => done };
}

describe('through modes on the requester', () => {
  let a: TestHost;
  let b: TestHost;

  beforeEach(async () => {
    ({ a, b } = await makeHostPair());
    await addRules([a, b], rule('send', TransferMode.SENDMODE), rule('recv', TransferMode.RECVMODE));
  });
  afterEach(() => closeHosts(a, b));

  for (const md5 of [false, true]) {
    it(`send-through${md5 ? ' with block digests' : ''}: the data comes from a Readable; the partner gets the exact bytes`, async () => {
      const data = patternBytes(1_000_003, 3);
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'streamed.bin', stream: chunked(data), md5 });
      expect(out.code, out.message).toBe(ErrorCode.CompleteOk);
      expect(out.record.mode).toBe(md5 ? TransferMode.SENDMD5THROUGHMODE : TransferMode.SENDTHROUGHMODE);
      const name = (await readdir(b.dirs.in)).find((f) => f.endsWith('streamed.bin'));
      expect(name).toBeDefined();
      expect((await readFile(path.join(b.dirs.in, name!))).equals(data)).toBe(true);
      // Nothing was read from or written to this host's directories.
      expect(await readdir(a.dirs.out)).toEqual([]);
    });

    it(`recv-through${md5 ? ' with block digests' : ''}: the partner's file goes to a Writable, no file on this host`, async () => {
      const data = patternBytes(777_777, 5);
      await writeFile(path.join(b.dirs.out, 'remote.bin'), data);
      const sink = collector();
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'remote.bin', stream: sink.stream, md5 });
      expect(out.code, out.message).toBe(ErrorCode.CompleteOk);
      expect(out.record.mode).toBe(md5 ? TransferMode.RECVMD5THROUGHMODE : TransferMode.RECVTHROUGHMODE);
      expect(sink.ended()).toBe(true);
      expect(sink.data().equals(data)).toBe(true);
      expect(await readdir(a.dirs.in)).toEqual([]);
      expect(await readdir(a.dirs.work)).toEqual([]);
    });
  }

  it('an empty stream sends an empty file', async () => {
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'empty.bin', stream: Readable.from([]) });
    expect(out.code, out.message).toBe(ErrorCode.CompleteOk);
    const name = (await readdir(b.dirs.in)).find((f) => f.endsWith('empty.bin'));
    expect((await readFile(path.join(b.dirs.in, name!))).length).toBe(0);
  });

  it('a missing remote file: the sink is destroyed, not ended', async () => {
    const sink = new PassThrough();
    const errors: Error[] = [];
    sink.on('error', (e) => errors.push(e));
    const out = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'absent.bin', stream: sink });
    expect(out.code).toBe(ErrorCode.FileNotFound);
    expect(sink.writableEnded).toBe(false);
    await waitFor(() => errors.length === 1, { what: 'the sink destroyed' });
    expect(sink.destroyed).toBe(true);
  });

  it('a stream of the wrong direction or a later submission is refused before any record', async () => {
    await expect(a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'x', stream: Readable.from([]) })).rejects.toMatchObject({ code: ErrorCode.IncorrectCommand });
    await expect(a.engine.submitLater({ partner: 'hostb', rule: 'send', file: 'x', stream: Readable.from([]) })).rejects.toMatchObject({ code: ErrorCode.IncorrectCommand });
    expect(await a.store.runner.count()).toBe(0);
  });
});
