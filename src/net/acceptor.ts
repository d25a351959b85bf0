/**
 * The requested side of a channel the partner opened: authentication (or reuse of the
 * connection's), then dispatch of the command to its handler (r66-protocol.md §6, §9.14).
 */
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { authentRefusalPacket, errorPacket, NOCHANNEL, PacketType, type AuthentPacket, type Packet } from '../protocol/index.js';
import { notifyUnexpected } from './alerts.js';
import { buildAuthent, checkAuthent } from './authentication.js';
import { normaliseIp } from './blacklist.js';
import type { LocalChannel } from './channel.js';
import type { NetContext } from './context.js';
import { R66Error } from '../model/r66-error.js';
import { ownHostId, type AuthenticatedPartner } from './partner.js';

/** Packets a channel may carry before authentication without being dropped (§6.4). */
function allowedBeforeAuthentication(p: Packet): boolean {
  return p.kind === 'error' || p.kind === 'connectionError' || p.kind === 'endRequest' || (p.kind === 'valid' && p.subType === PacketType.SHUTDOWN);
}

/**
 * Ends a channel the peer may still wait on so that it learns the end: the protocol has no close
 * packet (r66-protocol.md §3.3), so an Error(message, code, 3) goes out first, even when the
 * channel was already closed here, unless the peer ended it itself (its Error or ConnectionError)
 * or the connection is gone. Returns true when the Error was sent. Never throws.
 */
export function endChannel(channel: LocalChannel, message: string, code: ErrorCodeInfo): boolean {
  const connection = channel.connection;
  const tell = !(channel.closeReason instanceof R66Error && channel.closeReason.fromPartner) && !connection.isClosing && channel.remoteId !== NOCHANNEL;
  // Written before the id is released; the write itself is not awaited (no wait for drain here).
  if (tell) connection.sendPacket(channel.remoteId, channel.localId, errorPacket(message, code)).catch(() => undefined);
  channel.close(new R66Error(code, message));
  return tell;
}

/** Starts serving a channel the peer opened; runs in the background until the conversation ends. */
export function acceptChannel(ctx: NetContext, channel: LocalChannel): void {
  serve(ctx, channel).catch((err: unknown) => {
    // Only what happens before dispatch() lands here (dispatch() ends its channel itself).
    const message = err instanceof Error ? err.message : String(err);
    if (err instanceof R66Error && err.fromPartner) {
      ctx.logger.debug({ err: message }, 'channel ended by the partner');
      channel.close(err);
      return;
    }
    // An internal problem answers like the original's "cannot serve" (§6.5): `C`, Service unavailable.
    const told = err instanceof R66Error ? endChannel(channel, message, err.code) : endChannel(channel, 'Service unavailable', ErrorCode.ConnectionImpossible);
    if (told) ctx.logger.warn({ err: message, ip: channel.connection.remoteAddress }, 'channel ended before its command was served; the partner was sent an Error');
    else ctx.logger.debug({ err: message }, 'channel ended');
  });
}

async function serve(ctx: NetContext, channel: LocalChannel): Promise<void> {
  const connection = channel.connection;
  let partner = connection.authenticatedPartner;
  let packet = await channel.receive(ctx.timeoutConMs, 'the first packet');
  while (packet.kind === 'authent') {
    const accepted = await authenticate(ctx, channel, packet);
    if (accepted === undefined) return;
    partner = accepted;
    packet = await channel.receive(ctx.timeoutConMs, 'a command after authentication');
  }
  if (partner === undefined) {
    if (allowedBeforeAuthentication(packet)) {
      channel.close();
      return;
    }
    // The original ends such a channel without a word (§6.4), which leaves the opener waiting
    // forever; we tell it with Error `A` (docs/compatibility.md, Transfers).
    ctx.logger.warn({ kind: packet.kind, ip: connection.remoteAddress }, 'command on an unauthenticated channel refused');
    endChannel(channel, `Not authenticated: a ${packet.kind} packet came before any Authent on this connection`, ErrorCode.BadAuthent);
    return;
  }
  channel.partner = partner;
  await dispatch(ctx, channel, partner, packet);
}

/** Checks an Authent request; answers it, or refuses it and closes the connection (§6.5). */
async function authenticate(ctx: NetContext, channel: LocalChannel, packet: AuthentPacket): Promise<AuthenticatedPartner | undefined> {
  const connection = channel.connection;
  const isTls = connection.options.isTls;
  const outcome = await checkAuthent(packet, {
    directory: ctx.directory,
    isTls,
    remoteIp: connection.remoteAddress,
    identity: ctx.identity,
    checkAddress: ctx.checkAddress,
    checkClientAddress: ctx.checkClientAddress,
  });
  if (!outcome.ok) {
    ctx.logger.warn({ hostId: packet.hostId, ip: connection.remoteAddress, reason: outcome.reason }, 'authentication refused');
    ctx.notify?.('error', `Connection not allowed from ${normaliseIp(connection.remoteAddress ?? 'an unknown address')} since ${outcome.reason}`, packet.hostId);
    await channel.send(authentRefusalPacket(outcome.reason)).catch(() => undefined);
    ctx.blacklist.ban(connection.remoteAddress);
    channel.close(new R66Error(outcome.code, outcome.reason));
    connection.close(new R66Error(outcome.code, outcome.reason));
    return undefined;
  }
  const { partner } = outcome;
  // The answer echoes the request's localId (§6.2).
  const answer = await buildAuthent(ctx.identity, ctx.directory, isTls, packet.localId, 1);
  // Marked before the answer goes out: the send may wait for drain while the partner, already
  // holding the answer, opens its next channel with the reused authentication (§6.6).
  if (partner.capabilities.proxified) ctx.blacklist.disable();
  connection.markAuthenticated(partner, ctx.reuseAuthentication && partner.capabilities.authenticationReuse);
  channel.partner = partner;
  await channel.send(answer);
  ctx.logger.debug({ hostId: partner.hostId }, 'partner authenticated');
  return partner;
}

async function dispatch(ctx: NetContext, channel: LocalChannel, partner: AuthenticatedPartner, packet: Packet): Promise<void> {
  const handler = ctx.handlers.get(packet.kind);
  const logger = ctx.logger.child({ partner: partner.hostId, channel: channel.localId });
  try {
    if (handler === undefined) {
      if (allowedBeforeAuthentication(packet)) return;
      throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: ${packet.kind}`);
    }
    await handler({ channel, partner, ownHostId: ownHostId(ctx.identity, channel.connection.options.isTls), timeoutConMs: ctx.timeoutConMs, logger }, packet);
  } catch (err) {
    // An error that came from the peer is not echoed; ours is reported with its code, also when
    // the channel was already closed here (the peer would otherwise wait on it forever).
    if (!(err instanceof R66Error && err.fromPartner)) {
      const code = err instanceof R66Error ? err.code : ErrorCode.Internal;
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof R66Error)) {
        logger.error({ err: message }, 'command failed');
        notifyUnexpected(ctx.notify, err);
      }
      const wasClosed = channel.isClosed;
      if (endChannel(channel, message, code) && wasClosed) logger.warn({ err: message, code: code.char }, 'command ended on a closed channel; the partner was sent an Error');
    }
  } finally {
    channel.close();
  }
}
