/**
 * Waiting for an answer the partner may legitimately take long to give: the Request answer comes
 * after the partner's pre-tasks, the EndTransfer answer after its post-tasks; the receiver's Data
 * after the sender's pre-tasks (and at the pace of a bandwidth limit), its EndRequest after the
 * sender's post-tasks. The original
 * requester waits `timeoutcon` for the Request answer and then switches to "wait for end"
 * (r66-protocol.md §12): it keeps waiting as long as the channel and its connection live. So do we,
 * but a silent connection is checked: after each `timeoutcon` without the answer a KeepAlive goes
 * out (§9.13), and when nothing at all comes back within another `timeoutcon` the connection is
 * closed and the wait fails with Disconnection (`D`, resumable from the saved rank, §9.7). A channel
 * or connection that ends meanwhile fails the wait at once with its own reason.
 */
import type { Connection } from '../net/connection.js';
import { disconnected } from '../net/errors.js';
import { NOCHANNEL, type Packet } from '../protocol/index.js';
import type { TransferSession } from './session.js';

/** The next packet of the session's channel, waited for as described above. */
export async function awaitAnswer(s: TransferSession, what: string): Promise<Packet> {
  const period = s.core.limits.timeoutCon;
  const answer = s.next(undefined, what);
  if (!(period > 0)) return answer;
  const connection = s.channel.connection;
  const started = Date.now();
  // A long wait (the partner's tasks) writes nothing: the row is kept alive for other processes
  // (alive.ts) from the first silent period on; the usual quick answer costs nothing.
  let stopFresh: (() => Promise<void>) | null = null;
  try {
    for (let periods = 1; ; periods++) {
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), period)));
      try {
        const p = await Promise.race([answer, silent]);
        if (p !== null) return p;
      } finally {
        clearTimeout(timer);
      }
      const id = String(s.record.specialId);
      if (periods === 1) {
        s.logger.info({ id, partner: s.partner.hostId, ms: period }, `no ${what} within timeoutcon: waiting for the end, the connection checked every timeoutcon`);
        stopFresh = s.keepRowFresh();
      }
      if (!(await connectionAnswers(connection, period))) {
        const err = disconnected(`no ${what} for ${Date.now() - started} ms and no answer to KeepAlive within ${period} ms`);
        s.logger.warn({ id, partner: s.partner.hostId }, err.message);
        // Every channel of the dead connection ends with this reason, this wait included.
        connection.close(err);
        return answer;
      }
    }
  } finally {
    await stopFresh?.();
  }
}

/**
 * True when the partner shows it is alive within `timeoutMs` after a KeepAlive (any bytes count,
 * as the original counts any frame, §9.13); false when nothing came or the connection ended.
 */
function connectionAnswers(connection: Connection, timeoutMs: number): Promise<boolean> {
  if (connection.isClosing) return Promise.resolve(false);
  // Reading paused for a channel's unread backlog: the partner is talking, it is not read.
  if (connection.isReadPaused) return Promise.resolve(true);
  const socket = connection.socket;
  return new Promise<boolean>((resolve) => {
    const done = (alive: boolean): void => {
      clearTimeout(timer);
      connection.off('bytes', onBytes);
      socket.off('close', onClose);
      resolve(alive);
    };
    const onBytes = (): void => done(true);
    const onClose = (): void => done(false);
    const timer = setTimeout(() => done(connection.isReadPaused), timeoutMs);
    connection.on('bytes', onBytes);
    socket.once('close', onClose);
    connection.sendPacket(NOCHANNEL, NOCHANNEL, { kind: 'keepAlive', way: 0 }).catch(() => done(false));
  });
}
