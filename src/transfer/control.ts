/**
 * Transfer orders from a partner or an admin client (r66-protocol.md §9.9): stop (sub-type 9),
 * cancel (10) and restart (4), in the legacy Valid form and the JSON form. The answer carries the
 * ErrorCode character: Valid(header = the request's middle, middle = code, 15) or
 * JsonCommand(header = the request JSON, result = code, 15).
 */
import { hasRole, missingRoleMessage, Role } from '../config/index.js';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../net/errors.js';
import type { RequestContext, RequestHandler } from '../net/handlers.js';
import { unexpected } from '../net/commands/unexpected.js';
import type { ConnectionPool } from '../net/pool.js';
import { decodeValidCommand, encodeValidCommand, newJsonCommand, parseErrorCode, PacketType, type JsonCommandPacket, type ValidPacket } from '../protocol/index.js';
import type { TransferEngine } from './engine.js';
import type { ControlResult, TransferRef } from './types.js';

export const TRANSFER_ORDERS: ReadonlySet<number> = new Set([PacketType.STOP, PacketType.CANCEL, PacketType.VALID]);

/** `yyyyMMddHHmmss` (local time) of a restart order, or undefined. */
function restartTime(text: string | null | undefined): Date | undefined {
  const m = text ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text.trim()) : null;
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s);
}

/**
 * The role check of an order (r66-protocol.md §9.9): stop and cancel need SYSTEM, restart needs
 * TRANSFER, unless the caller is this host itself.
 */
function allowed(engine: TransferEngine, ctx: RequestContext, subType: number): boolean {
  if (engine.isOwnId(ctx.partner.hostId)) return true;
  return hasRole(engine.roleOf(ctx.partner.hostId, ctx.partner.host.adminRole), orderRole(subType));
}

const orderRole = (subType: number): number => (subType === PacketType.VALID ? Role.TRANSFER : Role.SYSTEM);

async function order(engine: TransferEngine, ctx: RequestContext, subType: number, ref: TransferRef, at: Date | undefined): Promise<ControlResult> {
  if (!allowed(engine, ctx, subType)) throw new R66Error(missingRoleMessage(ctx.partner.hostId, orderRole(subType)), ErrorCode.BadAuthent);
  if (subType === PacketType.STOP) return engine.stop(ref);
  if (subType === PacketType.CANCEL) return engine.cancel(ref);
  return engine.restart(ref, at);
}

export function transferControlHandlers(
  engine: TransferEngine,
  previousValid: RequestHandler | undefined,
  previousJson: RequestHandler | undefined,
): { valid: RequestHandler<'valid'>; jsonCommand: RequestHandler<'jsonCommand'> } {
  const valid: RequestHandler<'valid'> = async (ctx, p: ValidPacket) => {
    if (!TRANSFER_ORDERS.has(p.subType)) {
      if (previousValid) return previousValid(ctx, p);
      throw new R66Error(`Unimplemented command: Valid ${p.subType}`, ErrorCode.Unimplemented);
    }
    const c = decodeValidCommand(p);
    if (c.cmd !== 'stop' && c.cmd !== 'cancel' && c.cmd !== 'restart') throw new R66Error('Incorrect command', ErrorCode.IncorrectCommand);
    const at = c.cmd === 'restart' ? restartTime(c.restartTime) : undefined;
    const result = await order(engine, ctx, p.subType, { specialId: c.specialId, requester: c.requester, requested: c.requested }, at);
    await ctx.channel.send({ kind: 'valid', header: p.middle, middle: result.code.char, subType: PacketType.REQUESTUSER });
  };
  const jsonCommand: RequestHandler<'jsonCommand'> = async (ctx, p: JsonCommandPacket) => {
    const cmd = p.command;
    const isOrder = TRANSFER_ORDERS.has(p.subType) && (cmd?.jsonClass === 'StopOrCancelJsonPacket' || cmd?.jsonClass === 'RestartTransferJsonPacket');
    if (!isOrder || cmd === null) {
      if (previousJson) return previousJson(ctx, p);
      throw new R66Error(`Unimplemented command: JsonCommand ${p.subType}`, ErrorCode.Unimplemented);
    }
    const ref = { specialId: cmd.specialid, requester: cmd.requester ?? '', requested: cmd.requested ?? '' };
    const at = cmd.jsonClass === 'RestartTransferJsonPacket' && cmd.restarttime !== null ? new Date(cmd.restarttime) : undefined;
    const result = await order(engine, ctx, p.subType, ref, at);
    await ctx.channel.send({ kind: 'jsonCommand', command: cmd, result: result.code.char, subType: PacketType.REQUESTUSER });
  };
  return { valid, jsonCommand };
}

/** The order to send to a host (legacy or JSON), for clients that ask a remote host. */
export function stopOrCancelCommand(kind: 'stop' | 'cancel', ref: TransferRef): ReturnType<typeof newJsonCommand<'StopOrCancelJsonPacket'>> {
  return newJsonCommand('StopOrCancelJsonPacket', { requester: ref.requester, requested: ref.requested, specialid: ref.specialId, requestUserPacket: kind === 'stop' ? PacketType.STOP : PacketType.CANCEL });
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Asks the requester host of a transfer to restart it (a host that is only the requested side
 * forwards the order, r66-protocol.md §9.9) and relays its answer code.
 */
export async function forwardRestart(pool: ConnectionPool, ref: TransferRef, at: Date | undefined): Promise<ControlResult> {
  const { channel, partner } = await pool.openChannel(ref.requester);
  try {
    if (partner.capabilities.usesJson) {
      const command = newJsonCommand('RestartTransferJsonPacket', { requester: ref.requester, requested: ref.requested, specialid: ref.specialId, restarttime: at ? at.getTime() : null, requestUserPacket: PacketType.VALID });
      await channel.send({ kind: 'jsonCommand', command, result: '', subType: PacketType.VALID });
    } else {
      const time = at ? `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}` : null;
      await channel.send(encodeValidCommand({ cmd: 'restart', requester: ref.requester, requested: ref.requested, specialId: ref.specialId, restartTime: time }));
    }
    const answer = await channel.receive(undefined, 'the restart answer');
    if (answer.kind === 'valid') return { code: parseErrorCode(answer.middle), message: `answer of ${ref.requester}` };
    if (answer.kind === 'jsonCommand') return { code: parseErrorCode(answer.result), message: `answer of ${ref.requester}` };
    throw unexpected(answer, 'the restart answer');
  } finally {
    channel.close();
  }
}
