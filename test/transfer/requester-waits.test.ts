// The requester's waits for the Request answer and the EndTransfer answer (r66-protocol.md §12):
// after timeoutcon without the answer the connection is checked with a KeepAlive; a partner that
// does not answer it (frozen, or a network gone without FIN) ends the transfer in Disconnection
// (`D`, resumable) instead of holding it forever; a partner that answers it is waited for (its
// pre- or post-tasks may be long). Real hosts on loopback, a frame-reading proxy between them.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/model/error-code.js';
import { TransferMode } from '../../src/model/rule.js';
import { UpdatedInfo } from '../../src/model/transfer.js';
import { PacketType } from '../../src/protocol/index.js';
import { waitFor } from '../helpers/wait.js';
import { FrameProxy } from './frame-proxy.js';
import { addRules, closeHosts, makeHostPair, rule, type TestHost } from './harness.js';

const TIMEOUTCON = 200;

/**
 * hosta and hostb with a `send` rule and a file `a.txt` for hosta to send; hosta reaches hostb
 * through a frame proxy. `waiting` (the side under test) has timeoutcon TIMEOUTCON.
 */
async function proxiedPair(waiting: 'hosta' | 'hostb'): Promise<{ a: TestHost; b: TestHost; proxy: FrameProxy }> {
  const short = { limits: { timeoutCon: TIMEOUTCON } };
  const { a, b } = await makeHostPair(waiting === 'hosta' ? short : {}, waiting === 'hostb' ? short : {});
  try {
    await addRules([a, b], rule('send', TransferMode.SENDMODE));
    const proxy = await FrameProxy.start(b.listener.port);
    const entry = (await a.directory.find('hostb'))!;
    a.directory.set({ ...entry, host: { ...entry.host, port: proxy.port } });
    await writeFile(path.join(a.dirs.out, 'a.txt'), 'some data');
    return { a, b, proxy };
  } catch (err) {
    await closeHosts(a, b);
    throw err;
  }
}

describe('requester waits with a silent partner', () => {
  let a: TestHost;
  let b: TestHost;
  let proxy: FrameProxy;

  beforeEach(async () => {
    ({ a, b, proxy } = await proxiedPair('hosta'));
  });
  afterEach(async () => {
    await proxy.close();
    await closeHosts(a, b);
  });

  it('a partner that never answers the Request (nor the KeepAlive) ends the transfer in D', async () => {
    proxy.silenceAfter = (dir, f) => dir === 'toPartner' && f.code === PacketType.REQUEST;
    const started = Date.now();
    const outcome = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'a.txt' });
    expect(outcome.code).toBe(ErrorCode.Disconnection);
    // timeoutcon of silence, then timeoutcon for the KeepAlive answer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * TIMEOUTCON);
    expect(proxy.seen.toPartner).toContain(PacketType.KEEPALIVE);
  });

  it('a connection that drops silently while the EndTransfer answer is awaited ends the transfer in D', async () => {
    proxy.silenceAfter = (dir, f) => dir === 'toPartner' && f.code === PacketType.ENDTRANSFER;
    const outcome = await a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'a.txt' });
    expect(outcome.code).toBe(ErrorCode.Disconnection);
    expect(proxy.seen.toPartner).toContain(PacketType.ENDTRANSFER);
    expect(proxy.seen.toPartner).toContain(PacketType.KEEPALIVE);
  });

  it('a partner slow to answer the Request but answering KeepAlives is waited for', async () => {
    proxy.holdFrom = (dir, f) => dir === 'fromPartner' && f.code === PacketType.REQUEST;
    const keepAlives = (): number => proxy.seen.toPartner.filter((c) => c === PacketType.KEEPALIVE).length;
    const transfer = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'a.txt' });
    // Three checks answered: three periods beyond the first timeoutcon, still waiting.
    await waitFor(() => keepAlives() >= 3, { what: 'three KeepAlive checks' });
    proxy.release();
    const outcome = await transfer;
    expect(outcome.code).toBe(ErrorCode.CompleteOk);
  });
});

describe('receiver waits with a silent sender', () => {
  let a: TestHost;
  let b: TestHost;
  let proxy: FrameProxy;

  beforeEach(async () => {
    ({ a, b, proxy } = await proxiedPair('hostb'));
  });
  afterEach(async () => {
    await proxy.close();
    await closeHosts(a, b);
  });

  it('a receiver whose sender goes silent after the Request answer (no KeepAlive answer either) ends the transfer in D', async () => {
    proxy.silenceAfter = (dir, f) => dir === 'fromPartner' && f.code === PacketType.REQUEST;
    const transfer = a.engine.transfer({ partner: 'hostb', rule: 'send', file: 'a.txt' });
    const row = await waitFor(async () => {
      const r = (await b.store.runner.list())[0];
      return r !== undefined && r.updatedInfo !== UpdatedInfo.RUNNING ? r : undefined;
    }, { what: 'hostb ends its side of the transfer' });
    expect(row).toMatchObject({ updatedInfo: UpdatedInfo.INERROR, infoStatus: ErrorCode.Disconnection });
    expect(proxy.seen.fromPartner).toContain(PacketType.KEEPALIVE);
    // hosta ends once its connection is gone (hostb closed it) or at its close.
    await a.close();
    expect((await transfer).code).not.toBe(ErrorCode.CompleteOk);
  });
});
