/**
 * The bottom of the JsonCommand chain (r66-protocol.md §9.11, §9.14): what no registered command
 * took. JSON Test (13) is echoed with `O`; JSON Information (18) is answered as the Information
 * packet it stands for (Valid sub-type 18); a command whose JSON cannot be read or whose `@class` is
 * unknown gets the original's "Invalid command" answer with `c`; anything else Error `U`.
 */
import { ErrorCode } from '../../model/error-code.js';
import { InformationKind, invalidCommandAnswer, PacketType, type InformationPacket, type JsonCommandPacket } from '../../protocol/index.js';
import { R66Error } from '../errors.js';
import type { RequestContext, RequestHandler, RequestHandlers } from '../handlers.js';

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
    throw new R66Error(`Unimplemented command: JsonCommand ${p.subType}`, ErrorCode.Unimplemented);
  };
}
