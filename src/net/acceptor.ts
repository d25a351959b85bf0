/**
 * The requested side of a channel the partner opened: authentication (or reuse of the
 * connection's), then dispatch of the command to its handler (r66-protocol.md §6, §9.14).
 */
import { ErrorCode } from '../model/error-code.js';
import { authentRefusalPacket, errorPacket, PacketType, type AuthentPacket, type Packet } from '../protocol/index.js';
import { buildAuthent, checkAuthent } from './authentication.js';
import type { LocalChannel } from './channel.js';
import type { NetContext } from './context.js';
import { R66Error, RemoteError } from './errors.js';
import { ownHostId, type AuthenticatedPartner } from './partner.js';

/** Packets a channel may carry before authentication without being dropped (§6.4). */
function allowedBeforeAuthentication(p: Packet): boolean {
  return p.kind === 'error' || p.kind === 'connectionError' || p.kind === 'endRequest' || (p.kind === 'valid' && p.subType === PacketType.SHUTDOWN);
}

/** Starts serving a channel the peer opened; runs in the background until the conversation ends. */
export function acceptChannel(ctx: NetContext, channel: LocalChannel): void {
  serve(ctx, channel).catch((err: Error) => {
    ctx.logger.debug({ err: err.message }, 'channel ended');
    channel.close(err);
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
    // Not authenticated: the original ends such a channel without a word.
    if (!allowedBeforeAuthentication(packet)) ctx.logger.info({ kind: packet.kind }, 'command on an unauthenticated channel dropped');
    channel.close();
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
    await channel.send(authentRefusalPacket(outcome.reason)).catch(() => undefined);
    ctx.blacklist.ban(connection.remoteAddress);
    channel.close(new R66Error(outcome.reason, outcome.code));
    connection.close(new R66Error(outcome.reason, outcome.code));
    return undefined;
  }
  const { partner } = outcome;
  // The answer echoes the request's localId (§6.2).
  await channel.send(await buildAuthent(ctx.identity, ctx.directory, isTls, packet.localId, 1));
  if (partner.capabilities.proxified) ctx.blacklist.disable();
  connection.markAuthenticated(partner, ctx.reuseAuthentication && partner.capabilities.authenticationReuse);
  channel.partner = partner;
  ctx.logger.debug({ hostId: partner.hostId }, 'partner authenticated');
  return partner;
}

async function dispatch(ctx: NetContext, channel: LocalChannel, partner: AuthenticatedPartner, packet: Packet): Promise<void> {
  const handler = ctx.handlers.get(packet.kind);
  const logger = ctx.logger.child({ partner: partner.hostId, channel: channel.localId });
  try {
    if (handler === undefined) {
      if (allowedBeforeAuthentication(packet)) return;
      throw new R66Error(`Unimplemented command: ${packet.kind}`, ErrorCode.Unimplemented);
    }
    await handler({ channel, partner, ownHostId: ownHostId(ctx.identity, channel.connection.options.isTls), timeoutConMs: ctx.timeoutConMs, logger }, packet);
  } catch (err) {
    // An error that came from the peer is not echoed; ours is reported with its code.
    if (!(err instanceof RemoteError) && !channel.isClosed) {
      const code = err instanceof R66Error ? err.code : ErrorCode.Internal;
      const message = err instanceof Error ? err.message : String(err);
      if (!(err instanceof R66Error)) logger.error({ err: message }, 'command failed');
      await channel.send(errorPacket(message, code)).catch(() => undefined);
    }
  } finally {
    channel.close();
  }
}
