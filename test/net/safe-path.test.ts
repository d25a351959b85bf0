import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { isPathNotAllowed, resolveInside } from '../../src/fs/safe-path.js';
import type { R66Error } from '../../src/model/r66-error.js';
import { mlsxLine, mlsxTime } from '../../src/fs/listing.js';
import { wildcardToRegExp } from '../../src/fs/glob.js';

describe('resolveInside', () => {
  let root: string;
  let base: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-safe-'));
    base = path.join(root, 'out');
    await mkdir(path.join(base, 'sub'), { recursive: true });
    await writeFile(path.join(root, 'secret'), 's');
    await symlink(root, path.join(base, 'escape'));
    await symlink(path.join(base, 'sub'), path.join(base, 'inner'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('resolves relative names, missing files and absolute names inside the base', async () => {
    expect(await resolveInside(base, 'a.txt')).toBe(path.join(base, 'a.txt'));
    expect(await resolveInside(base, 'sub/new/file')).toBe(path.join(base, 'sub/new/file'));
    expect(await resolveInside(base, path.join(base, 'sub'))).toBe(path.join(base, 'sub'));
    expect(await resolveInside(base, '')).toBe(base);
    expect(await resolveInside(base, 'inner/x')).toBe(path.join(base, 'inner/x'));
    expect(await resolveInside(base, path.join(root, 'secret'), [root])).toBe(path.join(root, 'secret'));
    // Dots that are not a `..` segment are names like any other.
    for (const name of ['a..b', '..x', 'x..', 'sub/...', '.hidden', 'sub/./y']) expect(await resolveInside(base, name), name).toBe(path.join(base, name));
    // An existing file below a link inside: its real directory plus its name stays inside.
    await writeFile(path.join(base, 'sub', 'real.txt'), 'r');
    expect(await resolveInside(base, 'inner/real.txt')).toBe(path.join(base, 'inner', 'real.txt'));
    expect(await resolveInside(base, path.join(base, 'sub', 'real.txt'))).toBe(path.join(base, 'sub', 'real.txt'));
  });

  it('refuses .., NUL bytes, absolute paths outside and links that lead out, with FileNotAllowed', async () => {
    for (const name of ['..', '../secret', 'sub/..', 'sub//..//x', 'sub/../../secret', 'sub\\..\\x', '/etc/passwd', path.join(root, 'secret'), 'escape/secret', 'escape', 'a\0b']) {
      const err = await resolveInside(base, name).catch((e: unknown) => e);
      expect(isPathNotAllowed(err), name).toBe(true);
      expect((err as R66Error).code).toBe(ErrorCode.FileNotAllowed);
    }
  });
});

describe('listing helpers', () => {
  it('writes MLSx times in the local time zone, as the runner XML times', () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'Asia/Kolkata'; // UTC+05:30, no daylight saving
      expect(mlsxTime(new Date('2026-11-21T08:06:07.536Z'))).toBe('20261121133607.536');
      process.env.TZ = 'America/New_York';
      expect(mlsxTime(new Date('2026-11-21T18:36:07.536Z'))).toBe('20261121133607.536');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('formats MLSx lines like the original', () => {
    const mtime = new Date(2026, 10, 21, 13, 36, 7, 536);
    expect(mlsxTime(mtime)).toBe('20261121133607.536');
    expect(mlsxLine({ path: '/x/remote1.txt', isDirectory: false, size: 21, mtime, readable: true, writable: true })).toBe(' Size=21;Modify=20261121133607.536;Type=file;Perm=adfwr; remote1.txt');
    expect(mlsxLine({ path: '/x/d', isDirectory: true, size: 0, mtime, readable: true, writable: false })).toBe(' Size=0;Modify=20261121133607.536;Type=dir;Perm=le; d');
  });

  it('matches wildcards on one segment, everything else literal', () => {
    const re = wildcardToRegExp('a?c*.t(x)t');
    expect(re.test('abcdef.t(x)t')).toBe(true);
    expect(re.test('ac.t(x)t')).toBe(false);
    expect(re.test('abc/d.t(x)t')).toBe(false);
  });
});
