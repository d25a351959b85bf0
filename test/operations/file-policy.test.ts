// issue 20 item 3: the one file policy. Relative names below the rule's directory, absolute names
// only inside the served directories, every wildcard match checked after link resolution; the
// requested host refuses a pull whose wildcard matches a link out of its send directory with `a`
// (FileNotAllowed), as it refuses the same name without wildcard.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolvePolicyFiles, servedDirectories } from '../../src/fs/file-policy.js';
import { isPathNotAllowed } from '../../src/fs/safe-path.js';
import type { R66Error } from '../../src/model/r66-error.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { closeHosts, makeHostPair, rule, type TestHost } from '../helpers/hosts.js';

describe('resolvePolicyFiles', () => {
  let root: string;
  let dirs: { in: string; out: string; work: string; arch: string };
  let outside: string;

  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'svc-policy-'));
    dirs = { in: path.join(root, 'in'), out: path.join(root, 'out'), work: path.join(root, 'work'), arch: path.join(root, 'arch') };
    for (const d of Object.values(dirs)) mkdirSync(d);
    outside = path.join(root, 'secret.txt');
    writeFileSync(outside, 'secret');
    writeFileSync(path.join(dirs.out, 'a.txt'), 'a');
    writeFileSync(path.join(dirs.out, 'b.txt'), 'b');
    writeFileSync(path.join(dirs.in, 'got.txt'), 'g');
    symlinkSync(outside, path.join(dirs.out, 'evil-link'));
    symlinkSync(path.join(dirs.out, 'a.txt'), path.join(dirs.out, 'good-link'));
    mkdirSync(path.join(dirs.out, 'sub'));
    symlinkSync(root, path.join(dirs.out, 'sub', 'up'));
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const roots = () => ({ base: dirs.out, allowed: servedDirectories(dirs) });
  const refused = async (name: string): Promise<R66Error> => {
    const err = await resolvePolicyFiles(name, roots()).then(() => undefined, (e: unknown) => e);
    expect(isPathNotAllowed(err)).toBe(true);
    return err as R66Error;
  };

  it('takes a relative name below the rule directory, and an absolute one inside a served directory', async () => {
    expect(await resolvePolicyFiles('a.txt', roots())).toEqual([path.join(dirs.out, 'a.txt')]);
    expect(await resolvePolicyFiles(path.join(dirs.in, 'got.txt'), roots())).toEqual([path.join(dirs.in, 'got.txt')]);
    expect(await resolvePolicyFiles('not-yet.txt', roots())).toEqual([path.join(dirs.out, 'not-yet.txt')]);
    expect(await resolvePolicyFiles('good-link', roots())).toEqual([path.join(dirs.out, 'good-link')]);
  });

  it('refuses absolute names elsewhere, .. segments, NUL bytes and links out, naming only what was given', async () => {
    const shadow = await refused('/etc/shadow');
    expect(shadow.code).toBe(ErrorCode.FileNotAllowed);
    expect(shadow.message).toBe('File not allowed: "/etc/shadow" lies outside the rule directory');
    await refused('../secret.txt');
    await refused('a\0.txt');
    const link = await refused('evil-link');
    expect(link.message).not.toContain(outside);
    await refused('sub/up/secret.txt');
  });

  it('expands wildcards and checks every match after realpath', async () => {
    expect(await resolvePolicyFiles('?.txt', roots())).toEqual([path.join(dirs.out, 'a.txt'), path.join(dirs.out, 'b.txt')]);
    expect(await resolvePolicyFiles('none*', roots())).toEqual([]);
    const link = await refused('*link');
    expect(link.message).toBe('File not allowed: "*link" matches a file that leads outside the allowed directories');
    expect(await resolvePolicyFiles('*link', roots(), { wildcards: false })).toEqual([path.join(dirs.out, '*link')]);
  });
});

describe('the requested host under the policy (pull)', () => {
  let a: TestHost;
  let b: TestHost;
  let secret: string;

  beforeAll(async () => {
    ({ a, b } = await makeHostPair());
    for (const h of [a, b]) await h.addRule(rule('recv', TransferMode.RECVMODE));
    secret = path.join(b.home, 'secret-outside.txt');
    writeFileSync(secret, 'not for partners');
    mkdirSync(b.dirs.out, { recursive: true });
    symlinkSync(secret, path.join(b.dirs.out, 'the-link'));
  });

  afterAll(async () => closeHosts(a, b));

  it('refuses a wildcard matching a link out of the send directory with `a`, like the plain name', async () => {
    const wild = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: '*link' });
    expect(wild.code).toBe(ErrorCode.FileNotAllowed);
    expect(wild.message).not.toContain(secret);
    const plain = await a.engine.transfer({ partner: 'hostb', rule: 'recv', file: 'the-link' });
    expect(plain.code).toBe(ErrorCode.FileNotAllowed);
  });

  it('refuses a file to send outside the served directories before anything is written', async () => {
    await a.addRule(rule('send', TransferMode.SENDMODE));
    await expect(a.engine.transfer({ partner: 'hostb', rule: 'send', file: '/etc/passwd' })).rejects.toMatchObject({ code: ErrorCode.FileNotAllowed });
  });
});
