/**
 * The shutdown order (r66-protocol.md §9.12): `Shutdown(header = admin wire key, middle = [1] to
 * restart)`. Accepted from a caller with the SYSTEM role (or this server itself) whose key is the
 * one derived from this server's administrator password; otherwise
 * `Error("Invalid Shutdown comand", 'R')` (sic, the original's text). An accepted order gets no
 * direct answer: the caller's channel gets the "Shutdown forced" notice every open channel gets
 * (Valid 8, no rank), then the server stops (and restarts) once this conversation is closed.
 */
import { hasRole, Role } from '../../config/index.js';
import { ErrorCode } from '../../model/error-code.js';
import type { Notify } from '../../model/notifications.js';
import { encodeValidCommand, wireKeyMatches, type ShutdownPacket } from '../../protocol/index.js';
import { R66Error } from '../../model/r66-error.js';
import type { RequestHandler } from '../handlers.js';
import type { AuthenticatedPartner } from '../partner.js';

export interface ShutdownOrderSource {
  /** Clear administrator password of this server (server.xml `serverpasswd`). */
  adminPassword: string;
  ownIds: readonly string[];
  roleOf(partner: AuthenticatedPartner): number;
  /** Starts the ordered shutdown, or the in-process restart; called after the channel closes. */
  shutdown(restart: boolean): void;
  /** Application notifications (the server's SNMP agent). */
  notify?: Notify;
}

export function shutdownOrderHandler(source: ShutdownOrderSource): RequestHandler<'shutdown'> {
  return async (ctx, p: ShutdownPacket) => {
    const allowed = source.ownIds.includes(ctx.partner.hostId) || hasRole(source.roleOf(ctx.partner), Role.SYSTEM);
    if (!allowed || !wireKeyMatches(p.key, source.adminPassword)) throw new R66Error(ErrorCode.RemoteError, 'Invalid Shutdown comand');
    ctx.logger.warn({ partner: ctx.partner.hostId, restart: p.restart }, 'shutdown order received');
    source.notify?.('startOrShutdown', `Shutdown Order received effective in ${ctx.timeoutConMs} ms`, ctx.partner.hostId);
    await ctx.channel.send(encodeValidCommand({ cmd: 'shutdownNotice', rank: null })).catch(() => undefined);
    // Out of this conversation: the shutdown closes the connection it arrived on.
    setImmediate(() => source.shutdown(p.restart));
  };
}
