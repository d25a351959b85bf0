// Local wildcard expansion of msend/masend (cli.md §3.4, §3.5): the send directory's regular files
// matching the last segment, sorted, with their sizes; never links, directories or what is missing.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandLocal, expandLocalFiles } from '../../src/cli/r66client/files.js';
import type { DirectoryConfig } from '../../src/config/index.js';
import { TransferMode, type Rule } from '../../src/model/rule.js';

let home: string;
let dirs: DirectoryConfig;
const rule: Rule = {
  idRule: 'send', hostIds: [], mode: TransferMode.SENDMODE, recvPath: '', sendPath: '', archivePath: '', workPath: '',
  rPreTasks: [], rPostTasks: [], rErrorTasks: [], sPreTasks: [], sPostTasks: [], sErrorTasks: [], updatedInfo: 0,
};

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'svc-expand-'));
  const v = { in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' };
  dirs = { serverHome: home, virtual: v, in: join(home, 'in'), out: join(home, 'out'), arch: join(home, 'arch'), work: join(home, 'work'), conf: join(home, 'conf') };
  const out = dirs.out;
  mkdirSync(join(out, 'sub', 'inner.dat'), { recursive: true });
  writeFileSync(join(out, 'b.dat'), 'bb');
  writeFileSync(join(out, 'a.dat'), 'a');
  writeFileSync(join(out, 'Z.dat'), '');
  writeFileSync(join(out, 'c.txt'), 'ccc');
  writeFileSync(join(out, 'sub', 'x.dat'), 'xxxx');
  writeFileSync(join(home, 'outside.dat'), 'secret');
  symlinkSync(join(home, 'outside.dat'), join(out, 'link.dat'));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('expandLocalFiles', () => {
  it('a wildcard in the name: regular files only, sorted, with their sizes', async () => {
    const out = dirs.out;
    expect(await expandLocalFiles(dirs, rule, '*.dat')).toEqual([
      { path: join(out, 'Z.dat'), size: 0 }, { path: join(out, 'a.dat'), size: 1 }, { path: join(out, 'b.dat'), size: 2 },
    ]);
    expect(await expandLocalFiles(dirs, rule, '?.§')).toEqual([
      { path: join(out, 'Z.dat'), size: 0 }, { path: join(out, 'a.dat'), size: 1 }, { path: join(out, 'b.dat'), size: 2 }, { path: join(out, 'c.txt'), size: 3 },
    ]);
    expect(await expandLocalFiles(dirs, rule, 'sub/*.dat')).toEqual([{ path: join(out, 'sub', 'x.dat'), size: 4 }]);
    expect(await expandLocal(dirs, rule, 'sub/*')).toEqual([join(out, 'sub', 'x.dat')]);
    // An absolute pattern as typed (doubled or `.` segments): the paths come back normalised.
    expect(await expandLocalFiles(dirs, rule, `${out}//sub/./*.dat`)).toEqual([{ path: join(out, 'sub', 'x.dat'), size: 4 }]);
    expect(await expandLocalFiles(dirs, rule, `${out}/sub/../?.dat`)).toEqual([
      { path: join(out, 'Z.dat'), size: 0 }, { path: join(out, 'a.dat'), size: 1 }, { path: join(out, 'b.dat'), size: 2 },
    ]);
  });

  it('a name without wildcards comes back as given; no match or no directory gives nothing', async () => {
    expect(await expandLocalFiles(dirs, rule, 'missing.dat')).toEqual([{ path: 'missing.dat' }]);
    expect(await expandLocalFiles(dirs, rule, '*.none')).toEqual([]);
    expect(await expandLocalFiles(dirs, rule, 'nodir/*.dat')).toEqual([]);
  });

  it('a wildcard in a directory segment only: the generic listing, as before', async () => {
    expect(await expandLocal(dirs, rule, 's*/x.dat')).toEqual([]);
  });
});
