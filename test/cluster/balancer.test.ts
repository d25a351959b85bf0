// Issue 27 item 1: two members of hosta on one PostgreSQL behind a real haproxy (TCP mode): a
// partner sends through the balancer and sees one host (every file lands once in the shared
// directory, every row in the shared database). R66 multiplexes a partner's transfers on one TCP
// connection, so the balancer spreads partners (connections), not transfers: with two partners,
// both members receive. Transfer ids drawn by the members at the same time are unique.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { testDialects } from '../helpers/databases.js';
import { patternBytes, receivedContent } from '../helpers/hosts.js';
import { startHaproxy, type Balancer } from './haproxy.js';
import { clusterSetup, knowsHostaAt, type ClusterSetup } from './members.js';

const N = 30;
const dialects = testDialects().filter((d) => d.name === 'postgresql');

describe.each(dialects)('one logical host behind haproxy on $name', (dbc) => {
  let setup: ClusterSetup | undefined;
  let balancer: Balancer | undefined;

  beforeAll(async () => {
    setup = await clusterSetup(dbc, ['hostb', 'hostc']);
    if (setup === undefined) return;
    for (let i = 0; i < 2; i++) await setup.member();
    balancer = await startHaproxy(setup.members.map((m) => m.listener.port));
    // The partners know hosta at the balancer's address (its HOSTS entry there).
    for (const p of setup.partners) knowsHostaAt(p, balancer.port);
  });
  afterAll(async () => {
    await balancer?.stop();
    await setup?.teardown();
  });

  it('partners send through the balancer; both members receive, each file once', async (ctx) => {
    if (dbc.skip(ctx) || setup === undefined) return;
    const { members, home } = setup;
    const senders = setup.partners;
    const received = members.map(() => 0);
    members.forEach((m, i) => m.engine.on('start', () => { received[i] = (received[i] ?? 0) + 1; }));
    const outcomes = await Promise.all(Array.from({ length: N }, async (_, i) => {
      const from = senders[i % 2]!;
      await writeFile(path.join(from.dirs.out, `b${i}.bin`), patternBytes(5000 + i, i + 7));
      return from.engine.transfer({ partner: 'hosta', rule: 'send', file: `b${i}.bin` });
    }));
    expect(outcomes.map((o) => o.code)).toEqual(outcomes.map(() => ErrorCode.CompleteOk));
    expect(received.every((n) => n > 0), `requests per member: ${received.join(', ')}`).toBe(true);
    expect(received.reduce((a, b) => a + b, 0)).toBe(N);
    const rows = await members[0]!.store.runner.list({ ownerReq: 'hosta' });
    expect(rows).toHaveLength(N);
    expect(rows.every((r) => r.updatedInfo === UpdatedInfo.DONE)).toBe(true);
    for (let i = 0; i < N; i++) {
      const sent = await readFile(path.join(senders[i % 2]!.dirs.out, `b${i}.bin`));
      expect((await receivedContent(home.dirs.in, `b${i}.bin`)).equals(sent)).toBe(true);
    }
  }, 60_000);

  it('transfer ids drawn by both members at once are unique', async (ctx) => {
    if (dbc.skip(ctx) || setup === undefined) return;
    const draws = await Promise.all(setup.members.map(async (m) => {
      const ids: bigint[] = [];
      for (let i = 0; i < 300; i++) ids.push(await m.store.nextTransferId());
      return ids;
    }));
    const all = draws.flat();
    expect(new Set(all).size).toBe(all.length);
  });
});
