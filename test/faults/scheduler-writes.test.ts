// Issue 32 item 1: every path that writes a row handles the failure; the process-wide
// unhandled-rejection handler is a last resort. The scheduler's scan marks a due row of which this
// host is not the requester (database.md §9.1) with its own write, in flight beside the attempts:
// when the database goes away between the scan and that write, the failure was a rejected promise
// nobody awaited (the unhandled-rejection handler logged it, or, before issue 32, ended the process).
// Here the write fails as a stopped database fails it: the scan logs it, nothing reaches
// 'unhandledRejection', and the next scan writes the row once the database answers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TransferRecord } from '../../src/model/transfer.js';
import type { RunnerRepository } from '../../src/store/index.js';
import { TransferScheduler, type TransferEngine } from '../../src/transfer/index.js';
import { waitFor } from '../helpers/wait.js';
import { captureLogger } from '../net/idle-flood.js';

const row = { specialId: 7n, requester: 'otherhost', requested: 'hosta', ownerReq: 'hosta' } as unknown as TransferRecord;

describe('scheduler scan: a row write refused by a stopped database', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown): void => { unhandled.push(err); };
  beforeEach(() => { process.on('unhandledRejection', onUnhandled); });
  afterEach(() => { process.off('unhandledRejection', onUnhandled); });

  it('is logged by the scan and written at a later scan, never an unhandled rejection', async () => {
    let down = true;
    const moves: string[] = [];
    const runner = {
      listDue: async () => [row],
      move: async (_r: TransferRecord, m: { kind: string }) => {
        if (down) throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        moves.push(m.kind);
      },
    } as unknown as RunnerRepository;
    const engine = { requestsBlocked: false, close: async () => undefined } as unknown as TransferEngine;
    const { logger, lines } = captureLogger();
    const scheduler = new TransferScheduler({ engine, runner, ownIds: ['hosta'], ownerId: 'hosta', periodMs: 600_000, runLimit: 4, retryDelayMs: 1000, logger });
    try {
      await scheduler.tick();
      await waitFor(() => lines.some((l) => l.msg.includes('not requested here')), { what: 'the failed write logged' });
      // A turn for a rejection nobody handled to be reported.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      const line = lines.find((l) => l.msg.includes('not requested here'))!;
      expect(line.level).toBe('warn');
      expect(line.fields).toMatchObject({ id: '7', err: 'Connection terminated unexpectedly' });
      down = false;
      await waitFor(async () => {
        await scheduler.tick();
        return moves.length > 0;
      }, { what: 'the row written once the database answers' });
      expect(moves[0]).toBe('notRequester');
    } finally {
      await scheduler.stop();
    }
  });
});
