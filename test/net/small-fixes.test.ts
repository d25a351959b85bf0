// The small items of issue 21: getinfo -detail with a wildcard, file errors that name no server
// path, and the mode of received files.
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getFileInfo } from '../../src/client/getinfo.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { fileErrorText } from '../../src/net/errors.js';
import { localFileSystem } from '../../src/transfer/file/local-file-system.js';
import { createWorkFile, setReceivedFileMode } from '../../src/transfer/placement.js';
import { toR66Error } from '../../src/transfer/session.js';
import { netPairForSuite } from '../helpers/net-pair.js';

describe('getinfo -detail with a wildcard', () => {
  const p = netPairForSuite(async ({ b }) => {
    await writeFile(path.join(b.home, 'out', 'one.txt'), '1');
    await writeFile(path.join(b.home, 'out', 'two.txt'), '22');
  });

  it('answers the MLSx details of every match, and FileNotFound when none', async () => {
    const r = await getFileInfo(p.a.pool, 'hostb', 'send', 'detail', '*');
    expect(r.middle).toBe('2');
    expect(r.header).toMatch(/Size=1;.*one\.txt\n.*Size=2;.*two\.txt\n$/s);
    await expect(getFileInfo(p.a.pool, 'hostb', 'send', 'detail', '*.none')).rejects.toMatchObject({ code: ErrorCode.FileNotFound, message: expect.stringContaining('No file matches *.none') as unknown });
  });
});

describe('file errors sent to partners', () => {
  it('name the file, never the server path', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-errtext-'));
    try {
      const err = await open(path.join(dir, 'sub', 'missing.dat'), 'r').catch((e: unknown) => e as NodeJS.ErrnoException);
      expect(fileErrorText(err as NodeJS.ErrnoException)).toBe('ENOENT on open of missing.dat');
      const r66 = toR66Error(err);
      expect(r66.code).toBe(ErrorCode.FileNotFound);
      expect(r66.message).toBe('File not found: ENOENT on open of missing.dat');
      expect(r66.message).not.toContain(dir);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('received files', () => {
  it('are created with the configured mode (default 0640)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'svc-mode-'));
    const previous = process.umask(0o022);
    try {
      await (await createWorkFile(localFileSystem, path.join(dir, 'default.work'))).close();
      expect((await stat(path.join(dir, 'default.work'))).mode & 0o777).toBe(0o640);
      setReceivedFileMode(0o600);
      await (await createWorkFile(localFileSystem, path.join(dir, 'private.work'))).close();
      expect((await stat(path.join(dir, 'private.work'))).mode & 0o777).toBe(0o600);
    } finally {
      setReceivedFileMode(0o640);
      process.umask(previous);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
