// The roots of the file policy for an order (src/operations/order-files.ts) are computed once per
// rule, not once per file (masend: thousands of files of one rule in a row), and every file of a
// batch is still checked on its own: an absolute name outside the served directories and a link
// leading out are refused with FileNotAllowed while the other files of the batch get their rows.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DirectoryConfig } from '../../src/config/index.js';
import { ErrorCode } from '../../src/model/error-code.js';
import type { Host } from '../../src/model/host.js';
import { R66Error } from '../../src/model/r66-error.js';
import { TransferMode } from '../../src/model/rule.js';
import type { TransferRecord } from '../../src/model/transfer.js';
import { receiveRoots, sendRoots, TransferOrders } from '../../src/operations/index.js';
import { rule } from '../helpers/hosts.js';
import { openRecordStore, type RecordStore } from '../helpers/record-store.js';
import { RECORD_OWNER } from '../helpers/transfer-record.js';

describe('file policy roots of orders', () => {
  let rs: RecordStore;
  let dirs: DirectoryConfig;
  let outside: string;
  const partner: Host = { hostId: 'partnerA', address: '127.0.0.1', port: 6666, isSsl: false, hostKey: null, adminRole: false, isClient: false, isActive: true, isProxified: false, updatedInfo: 0 };

  beforeAll(async () => {
    rs = await openRecordStore('svc-order-files-');
    const home = path.join(rs.dir, 'home');
    const at = (d: string) => path.join(home, d);
    dirs = { serverHome: home, virtual: { in: '/in', out: '/out', arch: '/arch', work: '/work', conf: '/conf' }, in: at('in'), out: at('out'), arch: at('arch'), work: at('work'), conf: at('conf') };
    for (const d of [dirs.in, dirs.out, dirs.arch, dirs.work, dirs.conf, at('own-out')]) mkdirSync(d, { recursive: true });
    for (let i = 0; i < 40; i++) writeFileSync(path.join(dirs.out, `f${i}.dat`), `data ${i}`);
    outside = path.join(rs.dir, 'secret.txt');
    writeFileSync(outside, 'secret');
    symlinkSync(outside, path.join(dirs.out, 'evil-link'));
    await rs.store.rules.upsert(rule('send', TransferMode.SENDMODE));
  });

  afterAll(() => rs?.close());
  afterEach(() => vi.restoreAllMocks());

  it('gives the same roots for the same rule and directories, new ones when a directory differs', () => {
    const send = rule('send', TransferMode.SENDMODE);
    const first = sendRoots(send, dirs);
    expect(first).toEqual({ base: dirs.out, allowed: [dirs.in, dirs.out, dirs.work, dirs.arch] });
    // Another object with the same values: the roots already computed, frozen since shared.
    expect(sendRoots({ ...send }, dirs)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.allowed)).toBe(true);
    const own = sendRoots({ ...send, sendPath: '/own-out' }, dirs);
    expect(own.base).toBe(path.join(dirs.serverHome, 'own-out'));
    expect(sendRoots(send, dirs, ['/extra'])).toEqual({ base: dirs.out, allowed: [dirs.in, dirs.out, dirs.work, dirs.arch, '/extra'] });
    expect(receiveRoots(send, dirs)).toEqual({ base: dirs.in, allowed: [dirs.in, dirs.out, dirs.work, dirs.arch] });
  });

  it('checks every file of a batch with the roots computed once: files outside are refused, the others written', async () => {
    const orders = new TransferOrders({ store: rs.store, hostId: RECORD_OWNER, directories: dirs, blockSize: 65536, partner: async (id) => (id === partner.hostId ? partner : undefined) });
    const names = [
      ...Array.from({ length: 20 }, (_, i) => path.join(dirs.out, `f${i}.dat`)),
      '/etc/passwd', 'evil-link', path.join(dirs.out, 'evil-link'), '../secret.txt',
      ...Array.from({ length: 20 }, (_, i) => `f${20 + i}.dat`),
    ];
    // Before: eight path.resolve() per file for the roots alone; now one per file (its own name).
    const resolveCalls = vi.spyOn(path, 'resolve');
    const results = await orders.submitMany(names.map((file) => ({ partner: partner.hostId, rule: 'send', file, md5: false, fileInfo: '', noFollow: true })));
    expect(resolveCalls.mock.calls.length).toBeLessThan(names.length * 2);
    const refused = results.flatMap((r, i) => (r instanceof R66Error ? [[names[i], r.code]] : []));
    expect(refused).toEqual(['/etc/passwd', 'evil-link', path.join(dirs.out, 'evil-link'), '../secret.txt'].map((n) => [n, ErrorCode.FileNotAllowed]));
    const written = results.filter((r): r is TransferRecord => !(r instanceof R66Error));
    expect(written).toHaveLength(40);
    for (const r of written) {
      const stored = await rs.store.runner.get({ specialId: r.specialId, requester: r.requester, requested: r.requested, ownerReq: RECORD_OWNER });
      expect(stored?.originalName).toBe(r.originalName);
      expect(stored?.transferInfo).toMatch(/"ORIGINALSIZE":[67]/);
    }
  });
});
