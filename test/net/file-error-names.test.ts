// Issue 21 item 6: file errors a partner reads name the file relative to the rule's directory (a
// subdirectory kept), never by the server's absolute path; outside the rule's directories, its base name.
import { mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { partnerFileName } from '../../src/net/errors.js';
import { toR66Error } from '../../src/transfer/session.js';
import type { RuleDirectories } from '../../src/transfer/placement.js';
import { closeHosts, type TestHost } from '../helpers/hosts.js';
import { addRulePair, journalEntries, makeTaskHosts, task, transferBetween } from '../helpers/task-transfers.js';

describe('file names in error texts', () => {
  let home: string;
  let dirs: RuleDirectories;
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'svc-errnames-'));
    dirs = { home, in: path.join(home, 'in'), out: path.join(home, 'out'), work: path.join(home, 'work'), arch: path.join(home, 'arch') };
    await mkdir(path.join(dirs.out, 'sub', 'deeper'), { recursive: true });
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const openError = (file: string, flags = 'r'): Promise<NodeJS.ErrnoException> => open(file, flags).then(
    () => { throw new Error(`${file} opened`); },
    (e: unknown) => e as NodeJS.ErrnoException,
  );

  it('keep the subdirectory under the rule directory', async () => {
    const r66 = toR66Error(await openError(path.join(dirs.out, 'sub', 'missing.dat')), dirs);
    expect(r66.code).toBe(ErrorCode.FileNotFound);
    expect(r66.message).toBe('File not found: ENOENT on open of sub/missing.dat');
    expect(r66.message).not.toContain(home);
  });

  it('give the base name outside the rule directories, and without them', async () => {
    const outside = path.join(home, 'elsewhere', 'x.dat');
    expect(toR66Error(await openError(outside), dirs).message).toBe('File not found: ENOENT on open of x.dat');
    expect(toR66Error(await openError(path.join(dirs.out, 'sub', 'y.dat'))).message).toBe('File not found: ENOENT on open of y.dat');
  });

  it('name no absolute path for other file-system errors either', async () => {
    // A directory opened for writing: EISDIR, whose Node message holds the absolute path.
    const r66 = toR66Error(await openError(path.join(dirs.out, 'sub', 'deeper'), 'w'), dirs);
    expect(r66.message).toBe('File error: EISDIR on open of sub/deeper');
    expect(r66.message).not.toContain(home);
    expect(r66.code).toBe(ErrorCode.Internal);
  });

  it('partnerFileName: the deepest directory holding the file, never a way out', () => {
    expect(partnerFileName('/srv/r66/out/a/b.txt', ['/srv/r66', '/srv/r66/out'])).toBe('a/b.txt');
    expect(partnerFileName('/srv/r66/out/..hidden', ['/srv/r66/out'])).toBe('..hidden');
    expect(partnerFileName('/srv/r66/outside/c.txt', ['/srv/r66/out'])).toBe('c.txt');
    expect(partnerFileName('/srv/r66/out', ['/srv/r66/out'])).toBe('out');
  });
});

describe('a file error of a real transfer', () => {
  let a: TestHost;
  let b: TestHost;
  let journal: string;
  beforeAll(async () => {
    ({ a, b, journal } = await makeTaskHosts());
    // The sender's file disappears in its pre-tasks: its stat after them fails with ENOENT.
    await addRulePair([a, b], 'vanish', journal, (h) => (h === a ? { sPreTasks: [task('EXEC', 'rm -f #TRUEFULLPATH#', 5000)] } : {}));
  });
  afterAll(() => closeHosts(a, b));

  it('names the file in its subdirectory of the rule directory, to the partner too', async () => {
    await mkdir(path.join(a.dirs.out, 'sub'), { recursive: true });
    await writeFile(path.join(a.dirs.out, 'sub', 'gone.bin'), 'x');
    const { out, requested } = await transferBetween(a, b, { rule: 'vanish', file: 'sub/gone.bin' });
    expect(out.code).toBe(ErrorCode.FileNotFound);
    expect(out.message).toBe('File not found: ENOENT on stat of sub/gone.bin');
    expect(requested.infoStatus).toBe(ErrorCode.FileNotFound);
    expect(await journalEntries(journal)).toContain('rerror-hostb-f');
  });
});
