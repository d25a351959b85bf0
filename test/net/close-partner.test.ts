// Per-partner close of R66 connections (the web Hosts page's CloseConn, web-ui.md §2.4): a real
// loopback connection between two hosts is closed from either end, by the partner's host id; other
// partners' connections stay; the next conversation opens a new connection.
import { afterEach, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { R66Error } from '../../src/model/r66-error.js';
import { waitFor } from '../helpers/wait.js';
import { hostEntry, makeHost, makePair, type TestHost } from './harness.js';

const opened: TestHost[] = [];

afterEach(async () => {
  for (const h of opened.splice(0)) await h.close();
});

const reason = (): R66Error => new R66Error(ErrorCode.Disconnection, 'closed by a test');

describe('closing the connections of one partner', () => {
  it('from the accepting side (listener): the requester sees its connection end, then reconnects', async () => {
    const { a, b } = await makePair();
    opened.push(a, b);
    expect((await sendMessage(a.pool, 'hostb', 'one')).answer).toContain('one');
    expect(a.pool.size).toBe(1);
    expect(b.listener!.openConnections).toBe(1);
    // Another partner's id closes nothing.
    expect(await b.listener!.closePartner('nobody', reason())).toBe(0);
    expect(b.listener!.openConnections).toBe(1);
    expect(await b.listener!.closePartner('hosta', reason())).toBe(1);
    await waitFor(() => a.pool.size === 0 && b.listener!.openConnections === 0, { what: 'both ends of the connection closed' });
    expect((await sendMessage(a.pool, 'hostb', 'two')).answer).toContain('two');
    expect(b.listener!.openConnections).toBe(1);
  });

  it('from the requesting side (pool): only that partner\'s connection goes, a running conversation fails with Disconnection', async () => {
    const { a, b, entries } = await makePair();
    opened.push(a, b);
    // A third host, hostc, also listening and known to hosta.
    const c = await makeHost('hostc', entries, { listen: true });
    opened.push(c);
    a.directory.set({ host: hostEntry('hostc', c.listener!.port), password: Buffer.from('pc') });
    c.directory.set({ host: hostEntry('hostc', c.listener!.port), password: Buffer.from('pc') });
    await sendMessage(a.pool, 'hostb', 'to b');
    await sendMessage(a.pool, 'hostc', 'to c');
    expect(a.pool.size).toBe(2);
    // A channel open on the connection to hostb when it is closed ends with Disconnection.
    const { channel } = await a.pool.openChannel('hostb');
    const pending = channel.receive(10_000, 'an answer that never comes').then(() => 'answered', (err: unknown) => err);
    expect(await a.pool.closePartner('hostb')).toBe(1);
    expect(await pending).toMatchObject({ code: ErrorCode.Disconnection });
    await waitFor(() => b.listener!.openConnections === 0, { what: 'hostb seeing the connection closed' });
    expect(a.pool.size).toBe(1);
    expect(c.listener!.openConnections).toBe(1);
    expect((await sendMessage(a.pool, 'hostc', 'still there')).answer).toContain('still there');
  });
});
