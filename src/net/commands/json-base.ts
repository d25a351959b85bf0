/**
 * The bottom of the JsonCommand chain (r66-protocol.md §9.11, §9.14): what no registered command
 * took. JSON Test (13) is echoed with `O`; JSON Information (18) is answered as the Information
 * packet it stands for (Valid sub-type 18); a change notification (7), a shutdown notice (8) or an
 * answer (15) opening a channel is ignored (nothing to act on); a command whose JSON cannot be read,
 * whose `@class` is unknown or does not fit its sub-type, or whose sub-type nothing answers gets the
 * original's "Invalid command" answer with `c`. Never Unimplemented (issue 38 item 4).
 */
import { ErrorCode } from '../../model/error-code.js';
import { InformationKind, invalidCommandAnswer, PacketType, type InformationPacket, type JsonCommandPacket } from '../../protocol/index.js';
import type { RequestContext, RequestHandler, RequestHandlers } from '../handlers.js';

const QUIET_SUBTYPES: ReadonlySet<number> = new Set([PacketType.REQUEST, PacketType.SHUTDOWN, PacketType.REQUESTUSER]);

/** The Information packet an InformationJsonPacket stands for (`idRequest`: a transfer by id). */
export function informationFromJson(cmd: Extract<JsonCommandPacket['command'], { jsonClass: 'InformationJsonPacket' }>): InformationPacket {
  if (cmd.idRequest) return { kind: 'information', ruleOrId: cmd.id.toString(), request: InformationKind.REQUEST_CHECK, filename: cmd.to ? '1' : '0' };
  return { kind: 'information', ruleOrId: cmd.rulename ?? '', request: cmd.request, filename: cmd.filename ?? '' };
}

/** `handlers` is read at call time, so the Information handler registered later is the one used. */
export function baseJsonCommandHandler(handlers: RequestHandlers): RequestHandler<'jsonCommand'> {
  return async (ctx: RequestContext, p: JsonCommandPacket) => {
    const cmd = p.command;
    if (cmd === null) {
      await ctx.channel.send({ kind: 'jsonCommand', command: invalidCommandAnswer(p.subType), result: ErrorCode.CommandNotFound.char, subType: PacketType.REQUESTUSER });
      return;
    }
    if (p.subType === PacketType.TEST) {
      ctx.logger.info({ message: cmd.comment }, 'message received (JSON)');
      // Java sets requestUserPacket to the received sub-type, then sends the object back.
      await ctx.channel.send({ kind: 'jsonCommand', command: { ...cmd, requestUserPacket: p.subType }, result: ErrorCode.CompleteOk.char, subType: PacketType.REQUESTUSER });
      return;
    }
    const information = handlers.get('information') as RequestHandler<'information'> | undefined;
    if (p.subType === PacketType.INFORMATION && cmd.jsonClass === 'InformationJsonPacket' && information !== undefined) {
      return information(ctx, informationFromJson(cmd));
    }
    // A change notification (7) or a "Shutdown forced" notice (8) with no transfer on this channel,
    // an answer (15): the original has nothing to do and answers nothing (packets §16.2).
    if (QUIET_SUBTYPES.has(p.subType)) {
      ctx.logger.debug({ subType: p.subType }, 'JSON command with nothing to do on a new channel: ignored');
      return;
    }
    // A sub-type no module answers, or a class that does not fit it: the original's "Invalid command".
    await ctx.channel.send({ kind: 'jsonCommand', command: invalidCommandAnswer(p.subType), result: ErrorCode.CommandNotFound.char, subType: PacketType.REQUESTUSER });
  };
}
