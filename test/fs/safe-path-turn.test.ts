import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicyFiles } from '../../src/fs/file-policy.js';
import { isPathNotAllowed, resolveInside } from '../../src/fs/safe-path.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The real paths of directories are remembered for one event-loop turn only (safe-path.ts). */
describe('resolveInside: what it remembers lasts one turn', () => {
  let root: string;
  let base: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-turn-'));
    base = path.join(root, 'out');
    await mkdir(path.join(base, 'sub'), { recursive: true });
    await mkdir(path.join(root, 'elsewhere'));
    await writeFile(path.join(root, 'elsewhere', 'secret'), 's');
    await writeFile(path.join(base, 'sub', 'secret'), 'ok');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('sees a directory replaced by a link out at the next turn', async () => {
    expect(await resolveInside(base, 'sub/secret')).toBe(path.join(base, 'sub', 'secret'));
    await nextTurn();
    await rename(path.join(base, 'sub'), path.join(root, 'old-sub'));
    await symlink(path.join(root, 'elsewhere'), path.join(base, 'sub'));
    await nextTurn();
    const refused = (p: Promise<unknown>) => p.then(() => false, isPathNotAllowed);
    expect(await refused(resolveInside(base, 'sub/secret'))).toBe(true);
    expect(await refused(resolveInside(base, 'sub/missing/deeper'))).toBe(true);
    expect(await refused(resolvePolicyFiles('sub/*', { base, allowed: [] }))).toBe(true);
  });

  it('many names in one turn: every file that is a link out is refused, the others pass', async () => {
    await mkdir(path.join(base, 'many'));
    const names: string[] = [];
    for (let i = 0; i < 50; i++) {
      const n = `f${String(i).padStart(2, '0')}`;
      if (i === 37) await symlink(path.join(root, 'elsewhere', 'secret'), path.join(base, 'many', n));
      else await writeFile(path.join(base, 'many', n), 'x');
      names.push(`many/${n}`);
    }
    const results = await Promise.all(names.map((n) => resolveInside(base, n).then(() => 'ok', (e: unknown) => (isPathNotAllowed(e) ? 'refused' : 'error'))));
    expect(results.filter((r) => r === 'refused')).toHaveLength(1);
    expect(results[37]).toBe('refused');
    expect(results.filter((r) => r === 'ok')).toHaveLength(49);
  });

  it('a dangling link is taken as a missing file below its directory, as before', async () => {
    await symlink(path.join(base, 'nowhere'), path.join(base, 'dangling'));
    expect(await resolveInside(base, 'dangling')).toBe(path.join(base, 'dangling'));
  });
});
