/**
 * What a transfer reads of RULES and HOSTS, per host: each row once per transfer on each host (the
 * requester's first attempt runs with the rule and partner entry it was created from), and a rule
 * or partner entry changed in the database between two transfers is what the next one uses.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import type { Store } from '../../src/store/index.js';
import { waitFor } from '../helpers/wait.js';
import { addRules, closeHosts, makeHostPair, patternBytes, rule, type TestHost } from './harness.js';

/** Counts the calls of a store's rules.get and hosts.get (the real ones run). */
function countLookups(store: Store): { rules: number; hosts: number; reset(): void } {
  const counts = { rules: 0, hosts: 0, reset: () => void Object.assign(counts, { rules: 0, hosts: 0 }) };
  const rulesGet = store.rules.get.bind(store.rules);
  const hostsGet = store.hosts.get.bind(store.hosts);
  store.rules.get = (id) => (counts.rules++, rulesGet(id));
  store.hosts.get = (id) => (counts.hosts++, hostsGet(id));
  return counts;
}

describe('rule and partner lookups of a transfer', () => {
  let a: TestHost;
  let b: TestHost;
  let onA: ReturnType<typeof countLookups>;
  let onB: ReturnType<typeof countLookups>;

  beforeAll(async () => {
    // Partner entries read from HOSTS on each lookup, as a server's directory does.
    ({ a, b } = await makeHostPair({ partnersFromStore: true }, { partnersFromStore: true }));
    await addRules([a, b], rule('send', TransferMode.SENDMODE), rule('recv', TransferMode.RECVMODE));
    onA = countLookups(a.store);
    onB = countLookups(b.store);
  });
  afterAll(() => closeHosts(a, b));

  async function send(file: string, ruleId = 'send'): Promise<bigint> {
    await writeFile(path.join(a.dirs.out, file), patternBytes(70_000));
    const out = await a.engine.transfer({ partner: 'hostb', rule: ruleId, file });
    expect(out.message).toBe('');
    expect(out.code).toBe(ErrorCode.CompleteOk);
    await waitFor(async () => (await b.row({ specialId: out.record.specialId, requester: 'hosta', requested: 'hostb' }))?.updatedInfo === UpdatedInfo.DONE, { what: "hostb's row DONE" });
    return out.record.specialId;
  }

  it('reads the rule once on each host and the partner once on the requester (connection authenticated)', async () => {
    await send('warm.bin');
    onA.reset();
    onB.reset();
    await send('counted.bin');
    expect({ rules: onA.rules, hosts: onA.hosts }).toEqual({ rules: 1, hosts: 1 });
    expect({ rules: onB.rules, hosts: onB.hosts }).toEqual({ rules: 1, hosts: 0 });
  });

  it('the next transfer uses a rule changed in the database, on the requester and on the requested host', async () => {
    await send('before-change.bin');
    // The requester now sends from /other, the requested host receives into /elsewhere.
    await mkdir(path.join(a.home, 'other'), { recursive: true });
    await mkdir(path.join(b.home, 'elsewhere'), { recursive: true });
    await a.store.rules.upsert(rule('send', TransferMode.SENDMODE, { sendPath: '/other' }));
    await b.store.rules.upsert(rule('send', TransferMode.SENDMODE, { recvPath: '/elsewhere' }));
    try {
      await writeFile(path.join(a.home, 'other', 'after-change.bin'), patternBytes(70_000, 3));
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'after-change.bin' });
      expect(out.message).toBe('');
      expect(out.code).toBe(ErrorCode.CompleteOk);
      await waitFor(async () => (await readdir(path.join(b.home, 'elsewhere'))).some((f) => f.endsWith('_after-change.bin')), { what: 'the file in /elsewhere' });
    } finally {
      await addRules([a, b], rule('send', TransferMode.SENDMODE));
    }
  });

  it('the next transfer uses a partner entry changed in the database', async () => {
    await send('before-host-change.bin');
    const entry = await a.store.hosts.get('hostb');
    await a.store.hosts.upsert({ ...entry!, isClient: true });
    try {
      await writeFile(path.join(a.dirs.out, 'client.bin'), patternBytes(1000));
      const out = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'client.bin' });
      expect(out.code).toBe(ErrorCode.NotKnownHost);
      expect(out.message).toContain('client without address');
    } finally {
      await a.store.hosts.upsert(entry!);
    }
    await send('after-host-change.bin');
  });

  it('submitSend and submitRecv refuse a rule of the other direction before writing anything', async () => {
    await expect(a.engine.submitSend({ partner: 'hostb', rule: 'recv', file: 'x.bin' })).rejects.toThrow('rule recv is a receive rule: use a receive transfer');
    await expect(a.engine.submitRecv({ partner: 'hostb', rule: 'send', file: 'x.bin' })).rejects.toThrow('rule send is a send rule: use a send transfer');
    await writeFile(path.join(a.dirs.out, 'submitted.bin'), patternBytes(1000));
    onA.reset();
    const out = await a.engine.submitSend({ partner: 'hostb', rule: 'send', file: 'submitted.bin' });
    expect(out.code).toBe(ErrorCode.CompleteOk);
    expect(onA.rules).toBe(1);
  });
});
