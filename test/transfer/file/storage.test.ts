/**
 * The storage seam (src/transfer/file): a local file and the through-mode streams behind one
 * interface, the two file systems behind the seam (local and in memory) to the same contract, and
 * the receiver's write window over it, failures included.
 */
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/model/error-code.js';
import { R66Error } from '../../../src/model/r66-error.js';
import { LocalFile, SYNCED_WRITES_AVAILABLE } from '../../../src/transfer/file/local-file.js';
import { localFileSystem } from '../../../src/transfer/file/local-file-system.js';
import { MemoryFileSystem } from '../../../src/transfer/file/memory-file-system.js';
import type { TransferFileSystem } from '../../../src/transfer/file/storage.js';
import { StreamSink, StreamSource } from '../../../src/transfer/file/stream-file.js';
import { WriteWindow } from '../../../src/transfer/file/write-window.js';
import { patternBytes } from '../../helpers/hosts.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-storage-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function takesDirect(where: string): boolean {
  try {
    closeSync(openSync(path.join(where, 'probe'), fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_DIRECT));
    return true;
  } catch {
    return false;
  }
}

/** The two file systems behind the seam, each with a fresh directory to work in and a way to read a file back. */
const fileSystems = [
  { name: 'local', make: async () => ({ files: localFileSystem as TransferFileSystem, root: await mkdtemp(path.join(dir, 'fs-')), read: (f: string) => readFile(f) }) },
  {
    name: 'memory',
    make: async () => {
      const files = new MemoryFileSystem(['/memory/root']);
      return { files: files as TransferFileSystem, root: '/memory/root', read: async (f: string) => files.contentOf(f) };
    },
  },
];

describe.each(fileSystems)('TransferFileSystem: $name', ({ make }) => {
  const opts = { mode: 0o640, synced: false, direct: false };

  it('writes runs at their positions, reads them back, cuts and reports its size', async () => {
    const { files, root, read } = await make();
    const file = path.join(root, 'plain.bin');
    const storage = await files.create(file, opts);
    const data = patternBytes(300_000, 3);
    await storage.writeAt([data.subarray(100_000, 200_000), data.subarray(200_000)], 100_000, 200_000);
    await storage.writeAt([data.subarray(0, 100_000)], 0, 100_000);
    await storage.sync(data.length);
    expect(await storage.size()).toBe(data.length);
    await storage.truncate(250_000);
    await storage.close();
    await storage.close();
    expect((await read(file)).equals(data.subarray(0, 250_000))).toBe(true);
    expect(await files.fileSize(file)).toBe(250_000);
    const reader = await files.openForReading(file);
    const back = [Buffer.alloc(65536), Buffer.alloc(65536)];
    expect(await reader.readAt(back, 1000)).toBe(131072);
    expect(Buffer.concat(back).equals(data.subarray(1000, 1000 + 131072))).toBe(true);
    // The end of the data: fewer bytes than the buffers hold.
    expect(await reader.readAt([Buffer.alloc(65536)], 200_000)).toBe(50_000);
    await reader.close();
  });

  it('a reopened file is written in place, neither synced nor direct', async () => {
    const { files, root, read } = await make();
    const file = path.join(root, 'again.bin');
    await (await files.create(file, opts)).close();
    const first = await files.openForWriting(file);
    await first.writeAt([patternBytes(10_000, 7)], 0, 10_000);
    await first.close();
    const again = await files.openForWriting(file);
    expect(again.syncsEachWrite).toBe(false);
    await again.writeAt([Buffer.from('abc')], 5000, 3);
    expect(await again.size()).toBe(10_000);
    await again.close();
    expect((await read(file)).subarray(5000, 5003).toString()).toBe('abc');
  });

  it('fails as node:fs does: EEXIST, ENOENT, a missing file has no size, a directory is no file', async () => {
    const { files, root } = await make();
    const file = path.join(root, 'once.bin');
    await (await files.create(file, opts)).close();
    await expect(files.create(file, opts)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(files.create(path.join(root, 'no-dir', 'f.bin'), opts)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(files.openForReading(path.join(root, 'none.bin'))).rejects.toMatchObject({ code: 'ENOENT', path: path.join(root, 'none.bin') });
    await expect(files.openForWriting(path.join(root, 'none.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(files.remove(path.join(root, 'none.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(files.rename(file, path.join(root, 'no-dir', 'f.bin'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await files.fileSize(path.join(root, 'none.bin'))).toBeUndefined();
    expect(await files.fileSize(root)).toBeUndefined();
  });

  it('renames a file still open (its writes follow it), copies, lists, removes, makes directories', async () => {
    const { files, root, read } = await make();
    const work = path.join(root, 'work', 'f.bin.r66');
    await files.makeDirectory(path.join(root, 'work'));
    await files.makeDirectory(path.join(root, 'work'));
    const open = await files.create(work, opts);
    await open.writeAt([Buffer.from('first ')], 0, 6);
    const moved = path.join(root, 'work', 'g.bin.r66');
    await files.rename(work, moved);
    await open.writeAt([Buffer.from('second')], 6, 6);
    await open.close();
    expect((await read(moved)).toString()).toBe('first second');
    expect(await files.fileSize(work)).toBeUndefined();
    await files.makeDirectory(path.join(root, 'in', 'sub'));
    await files.copy(moved, path.join(root, 'in', 'g.bin'));
    expect((await read(path.join(root, 'in', 'g.bin'))).toString()).toBe('first second');
    expect(await files.list(path.join(root, 'in'))).toEqual(expect.arrayContaining(['g.bin', 'sub']));
    expect(await files.list(path.join(root, 'nowhere'))).toEqual([]);
    await files.remove(moved);
    expect(await files.list(path.join(root, 'work'))).toEqual([]);
  });
});

describe('the seam is whole', () => {
  it('in src/transfer only the local file system (local-file*.ts, direct-writer.ts) imports node:fs', async () => {
    const root = path.resolve('src/transfer');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('.ts'));
    const allowed = new Set(['file/local-file.ts', 'file/local-file-system.ts', 'file/direct-writer.ts'].map((f) => path.normalize(f)));
    const importing: string[] = [];
    for (const f of files) {
      if (/from 'node:fs(\/promises)?'/.test(await readFile(path.join(root, f), 'utf8')) && !allowed.has(path.normalize(f))) importing.push(f);
    }
    expect(importing).toEqual([]);
  });
});

describe('LocalFile', () => {
  it('direct writes: the padding of a short last run is cut at the sync with the data end', async () => {
    const file = path.join(dir, 'direct.bin');
    const storage = await LocalFile.create(file, { mode: 0o640, direct: true, synced: false });
    const data = patternBytes((1 << 20) + 1234, 5);
    await storage.writeAt([data.subarray(0, 1 << 20)], 0, 1 << 20);
    await storage.writeAt([data.subarray(1 << 20)], 1 << 20, 1234);
    if (takesDirect(dir)) expect(await storage.size()).toBe((1 << 20) + 4096);
    await storage.sync(data.length);
    await storage.close();
    expect((await readFile(file)).equals(data)).toBe(true);
  });

  it('a small file created for synced writes syncs each write (O_DSYNC) where the platform has it', async () => {
    const storage = await LocalFile.create(path.join(dir, 'synced.bin'), { mode: 0o640, direct: false, synced: true });
    expect(storage.syncsEachWrite).toBe(SYNCED_WRITES_AVAILABLE);
    await storage.close();
  });
});

describe('StreamSource and StreamSink', () => {
  it('a source is read in order across chunk boundaries, and refuses a rewind', async () => {
    const source = new StreamSource(Readable.from([Buffer.from('hello '), Buffer.from('through '), 'world']));
    const a = Buffer.alloc(4);
    const b = Buffer.alloc(100);
    expect(await source.readAt([a], 0)).toBe(4);
    expect(await source.readAt([b], 4)).toBe(15);
    expect(a.toString() + b.subarray(0, 15).toString()).toBe('hello through world');
    await expect(source.readAt([a], 0)).rejects.toThrow(/reads its stream in order/);
    await expect(source.writeAt()).rejects.toMatchObject({ code: ErrorCode.PassThroughMode });
    await source.close();
  });

  it('a sink takes the writes in order, counts them, refuses a rewind, and is ended by close', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const sink = new StreamSink(out);
    await sink.writeAt([Buffer.from('one '), Buffer.from('two ')], 0, 8);
    await sink.writeAt([Buffer.from('three')], 8, 5);
    expect(await sink.size()).toBe(13);
    const rewind = await sink.writeAt([Buffer.from('x')], 4, 1).catch((e: unknown) => e);
    expect(rewind).toBeInstanceOf(R66Error);
    expect((rewind as R66Error).code).toBe(ErrorCode.TransferError);
    const ended = new Promise((resolve) => out.on('end', resolve));
    await sink.close();
    await ended;
    expect(Buffer.concat(chunks).toString()).toBe('one two three');
  });

  it('a sink aborted after a failure is destroyed, not ended', async () => {
    const out = new PassThrough();
    const sink = new StreamSink(out);
    await sink.abort(new Error('the transfer ended in error'));
    expect(out.destroyed).toBe(true);
    expect(out.writableFinished).toBe(false);
  });
});

describe('WriteWindow', () => {
  it('after a failed write, every later call fails at once (no pump restarted, no hang)', async () => {
    const failing = new Writable({ write: (_chunk, _enc, done) => done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })) });
    failing.on('error', () => undefined);
    const window = new WriteWindow(new StreamSink(failing));
    await window.write(Buffer.alloc(1000), 0);
    await expect(window.drain()).rejects.toThrow(/ENOSPC/);
    await expect(window.write(Buffer.alloc(1000), 1000)).rejects.toThrow(/ENOSPC/);
    // The block refused above is not queued; a drain or written() right after still settles.
    await expect(window.drain()).rejects.toThrow(/ENOSPC/);
    await expect(window.written()).rejects.toThrow(/ENOSPC/);
  });

  it('writes consecutive blocks together and in order', async () => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const window = new WriteWindow(new StreamSink(out));
    const data = patternBytes(5 * 65536, 9);
    for (let i = 0; i < 5; i++) await window.write(data.subarray(i * 65536, (i + 1) * 65536), i * 65536);
    await window.drain();
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
  });
});
