/**
 * Transfer orders from a partner or an admin client over R66 (r66-protocol.md §9.9): stop
 * (sub-type 9), cancel (10) and restart (4), in the legacy Valid form and the JSON form. They go
 * to the process's order service (TransferOrders.stop/cancel/restart), the one every other entry
 * point calls, so a partner's order changes a row exactly as a REST, web or CLI order does. The
 * answer carries the ErrorCode character: Valid(header = the request's middle, middle = code, 15)
 * or JsonCommand(header = the request JSON, result = code, 15).
 */
import { hasRole, missingRoleMessage, Role } from '../config/index.js';
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import type { RequestContext, RequestHandler, RequestHandlers } from '../net/handlers.js';
import { decodeValidCommand, PacketType, type JsonCommandPacket, type ValidPacket } from '../protocol/index.js';
import type { TransferRef } from '../transfer/types.js';
import type { OrderResult } from './stored-orders.js';
import type { TransferOrders } from './transfer-orders.js';

/** The sub-kinds of Valid and JsonCommand these handlers answer. */
export const TRANSFER_ORDERS: ReadonlySet<number> = new Set([PacketType.STOP, PacketType.CANCEL, PacketType.VALID]);

/** What a partner's order needs besides the order service: who may give it (the engine has both). */
export interface OrderAuthority {
  /** True for this host's own ids: such a caller may give any order. */
  isOwnId(hostId: string): boolean;
  /** The effective role of a partner (config.md §3.10). */
  roleOf(hostId: string, isAdmin: boolean): number;
}

export interface PartnerOrdersDeps {
  /** The process's order service (the one REST, the web pages and the CLI call). */
  orders: Pick<TransferOrders, 'stop' | 'cancel' | 'restart'>;
  authority: OrderAuthority;
}

/** `yyyyMMddHHmmss` (local time) of a restart order, or undefined. */
function restartTime(text: string | null | undefined): Date | undefined {
  const m = text ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text.trim()) : null;
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s);
}

/** Stop and cancel need SYSTEM, restart needs TRANSFER (§9.9). */
const orderRole = (subType: number): number => (subType === PacketType.VALID ? Role.TRANSFER : Role.SYSTEM);

/** The role check, then the order service's call: the same call a REST or CLI order makes. */
async function order(deps: PartnerOrdersDeps, ctx: RequestContext, subType: number, ref: TransferRef, at: Date | undefined): Promise<OrderResult> {
  const { authority, orders } = deps;
  const caller = ctx.partner.hostId;
  if (!authority.isOwnId(caller) && !hasRole(authority.roleOf(caller, ctx.partner.host.adminRole), orderRole(subType))) {
    throw new R66Error(ErrorCode.BadAuthent, missingRoleMessage(caller, orderRole(subType)));
  }
  if (subType === PacketType.STOP) return orders.stop(ref);
  if (subType === PacketType.CANCEL) return orders.cancel(ref);
  return orders.restart(ref, at);
}

/**
 * The Valid and JsonCommand rows of the transfer orders. A packet of these sub-kinds that is not
 * a transfer order (another JSON class) goes to `previousValid`/`previousJson`, the kind's row for
 * the rest.
 */
export function partnerOrderHandlers(
  deps: PartnerOrdersDeps,
  previousValid: RequestHandler | undefined,
  previousJson: RequestHandler | undefined,
): { valid: RequestHandler<'valid'>; jsonCommand: RequestHandler<'jsonCommand'> } {
  const valid: RequestHandler<'valid'> = async (ctx, p: ValidPacket) => {
    if (!TRANSFER_ORDERS.has(p.subType)) {
      if (previousValid) return previousValid(ctx, p);
      throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: Valid ${p.subType}`);
    }
    const c = decodeValidCommand(p);
    if (c.cmd !== 'stop' && c.cmd !== 'cancel' && c.cmd !== 'restart') throw new R66Error(ErrorCode.IncorrectCommand, 'Incorrect command');
    const at = c.cmd === 'restart' ? restartTime(c.restartTime) : undefined;
    const result = await order(deps, ctx, p.subType, { specialId: c.specialId, requester: c.requester, requested: c.requested }, at);
    await ctx.channel.send({ kind: 'valid', header: p.middle, middle: result.code.char, subType: PacketType.REQUESTUSER });
  };
  const jsonCommand: RequestHandler<'jsonCommand'> = async (ctx, p: JsonCommandPacket) => {
    const cmd = p.command;
    const isOrder = TRANSFER_ORDERS.has(p.subType) && (cmd?.jsonClass === 'StopOrCancelJsonPacket' || cmd?.jsonClass === 'RestartTransferJsonPacket');
    if (!isOrder || cmd === null) {
      if (previousJson) return previousJson(ctx, p);
      throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: JsonCommand ${p.subType}`);
    }
    const ref = { specialId: cmd.specialid, requester: cmd.requester ?? '', requested: cmd.requested ?? '' };
    const at = cmd.jsonClass === 'RestartTransferJsonPacket' && cmd.restarttime !== null ? new Date(cmd.restarttime) : undefined;
    const result = await order(deps, ctx, p.subType, ref, at);
    await ctx.channel.send({ kind: 'jsonCommand', command: cmd, result: result.code.char, subType: PacketType.REQUESTUSER });
  };
  return { valid, jsonCommand };
}

/** Registers the transfer orders' rows in a handler table (a client's or a test host's engine; a server composes its own). */
export function registerPartnerOrders(handlers: RequestHandlers, deps: PartnerOrdersDeps): void {
  const rows = partnerOrderHandlers(deps, handlers.restOf('valid'), handlers.restOf('jsonCommand'));
  handlers.registerSubKinds('valid', TRANSFER_ORDERS, rows.valid, 'transfer orders');
  handlers.registerSubKinds('jsonCommand', TRANSFER_ORDERS, rows.jsonCommand, 'transfer orders');
}
