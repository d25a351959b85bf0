/**
 * The bottom of the Valid chain (packets §5.1, r66-protocol.md §9.14): the sub-types no command
 * module takes when one opens a channel. The original acts on none of them there: an answer (13
 * end of test, 15, 18) or a "Shutdown forced" notice (8) with no transfer on the channel is taken
 * and the channel closed, an unknown sub-type is ignored ("Validation is ignored"); a change
 * notification (7) names a transfer the channel does not carry, which is an incorrect command
 * (`n`). Never Unimplemented (issue 38 item 4).
 *
 * Also the bottom rows of the packets that open no conversation: a Startup (type 2) is ignored with a
 * warning (packets §1: never sent by 3.x hosts), a Data or EndTransfer with no transfer on its
 * channel fails as the original's handler fails then (`R`, packets §14.1 "unexpected exception in a
 * handler").
 */
import { ErrorCode } from '../../model/error-code.js';
import { PacketType, type DataPacket, type EndTransferPacket, type StartupPacket, type ValidPacket } from '../../protocol/index.js';
import { R66Error } from '../../model/r66-error.js';
import type { RequestContext, RequestHandler } from '../handlers.js';

export const baseValidHandler: RequestHandler<'valid'> = async (ctx: RequestContext, p: ValidPacket) => {
  if (p.subType === PacketType.REQUEST) throw new R66Error(ErrorCode.IncorrectCommand, 'a change notification (Valid 7) needs a transfer on its channel');
  ctx.logger.debug({ subType: p.subType }, 'Valid with nothing to do on a new channel: ignored');
};

export const ignoredStartupHandler: RequestHandler<'startup'> = async (ctx: RequestContext, p: StartupPacket) => {
  ctx.logger.warn({ localId: p.localId }, 'Startup packet received (never sent by 3.x hosts): ignored');
};

export const noTransferHandler: RequestHandler<'data' | 'endTransfer'> = async (_ctx: RequestContext, p: DataPacket | EndTransferPacket) => {
  throw new R66Error(ErrorCode.RemoteError, `${p.kind === 'data' ? 'a Data' : 'an EndTransfer'} packet with no transfer on its channel`);
};
