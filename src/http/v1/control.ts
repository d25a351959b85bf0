/**
 * v1 `/control` (model Control, rest-v1.md §12.7): transfer information, restart, stop/cancel and
 * creation of a transfer to submit. Orders go through the order service (`services.orders`): the
 * running engine's when it is plugged in, else the stored record.
 */
import { hasRole, Role } from '../../config/index.js';
import { ErrorCode } from '../../model/error-code.js';
import { isMd5Mode } from '../../model/rule.js';
import { ILLEGAL_SPECIAL_ID, type TransferKey, type TransferRecord } from '../../model/transfer.js';
import type { JsonCommand, JsonCommandOf } from '../../protocol/index.js';
import type { RestListenerContext } from '../context.js';
import { asOrderError } from '../../operations/index.js';
import { v1OrderRefusal } from '../error-answer.js';
import { isSelf, type ActionResult } from './actions.js';
import type { V1Identity } from './auth.js';
import { transferInformation } from './info.js';
import { packetJson } from './packets.js';

const model = 'Control';

/** Restart codes the original counts as valid (§12.7). */
const RESTART_OK = new Set(['O', 'i', 'P', 'B', 'Q', 's', 'z', 'X']);

function keyOf(ctx: RestListenerContext, p: { requester: string | null; requested: string | null; specialid: bigint }): TransferKey | undefined {
  if (!p.requester || !p.requested || p.specialid === ILLEGAL_SPECIAL_ID) return undefined;
  return { specialId: p.specialid, requester: p.requester, requested: p.requested, ownerReq: ctx.services.config.hostId };
}

async function restart(ctx: RestListenerContext, id: V1Identity, p: JsonCommandOf<'RestartTransferJsonPacket'>): Promise<ActionResult> {
  const command = 'RestartTransfer';
  if (!hasRole(id.roles, Role.TRANSFER) && !isSelf(ctx, id)) return { code: 401, httpStatus: 401, command, model, detail: 'role TRANSFER required' };
  const key = keyOf(ctx, p);
  if (key === undefined) return { code: 406, command, model, results: [packetJson(p)], detail: `${ErrorCode.IncorrectCommand.meaning}: requester, requested and specialid are required` };
  let result;
  try {
    result = await ctx.services.orders.restart(key, p.restarttime === null ? undefined : new Date(p.restarttime));
  } catch (err) {
    return { ...v1OrderRefusal(asOrderError(err)), command, model, results: [packetJson(p)] };
  }
  return { code: RESTART_OK.has(result.code.char) ? 200 : 406, command, model, results: [packetJson(p)], detail: result.message };
}

async function stopOrCancel(ctx: RestListenerContext, id: V1Identity, p: JsonCommandOf<'StopOrCancelJsonPacket'>): Promise<ActionResult> {
  const command = 'StopOrCancelTransfer';
  if (!hasRole(id.roles, Role.SYSTEM) && !isSelf(ctx, id)) return { code: 401, httpStatus: 401, command, model, detail: 'role SYSTEM required' };
  const key = keyOf(ctx, p);
  if (key === undefined) return { code: 404, command, model, results: [packetJson(p)], detail: 'requester, requested and specialid are required' };
  // Sub-type 10 cancels, anything else stops (the Java client sends 9 or 10).
  let result;
  try {
    result = await (p.requestUserPacket === 10 ? ctx.services.orders.cancel(key) : ctx.services.orders.stop(key));
  } catch (err) {
    return { ...v1OrderRefusal(asOrderError(err)), command, model, results: [packetJson(p)] };
  }
  return { code: 200, command, model, results: [packetJson(p)], detail: result.code.meaning };
}

/** Start time of a new transfer: `start`, else `delay` (relative when `additionalDelay`, else absolute), else now. */
function startOf(ctx: RestListenerContext, p: JsonCommandOf<'TransferRequestJsonPacket'>): Date {
  const now = ctx.services.now();
  if (p.start !== null) return new Date(p.start);
  if (p.delay > 0n) return p.additionalDelay ? new Date(now.getTime() + Number(p.delay)) : new Date(Number(p.delay));
  return now;
}

async function create(ctx: RestListenerContext, p: JsonCommandOf<'TransferRequestJsonPacket'>): Promise<ActionResult> {
  const command = 'CreateTransfer';
  const refuse = (detail: string): ActionResult => ({ code: 406, command, model, results: [packetJson(p)], detail });
  const { services } = ctx;
  const { store } = services;
  const rule = p.rulename ? await store.rules.get(p.rulename) : undefined;
  if (rule === undefined) return refuse(`rule ${p.rulename ?? ''} not found`);
  const remote = p.requested ? await store.hosts.get(p.requested) : undefined;
  if (remote === undefined) return refuse(`host ${p.requested ?? ''} is not known`);
  if (!p.filename) return refuse('filename is required');
  const start = startOf(ctx, p);
  const { orders } = services;
  let record: TransferRecord;
  try {
    if (p.specialId !== 0n && p.specialId !== ILLEGAL_SPECIAL_ID) {
      // A non-zero id resubmits an existing transfer of ours with that partner from its restart point.
      record = await orders.resubmit(await orders.keyFor(remote.hostId, p.specialId), start);
    } else {
      record = await orders.submit({
        partner: remote.hostId, rule: rule.idRule, file: p.filename, md5: isMd5Mode(p.mode), start, fileInfo: p.fileInformation,
        ...(p.blocksize > 0 ? { blockSize: p.blocksize } : {}),
      });
    }
  } catch (err) {
    return { ...v1OrderRefusal(asOrderError(err)), command, model, results: [packetJson(p)] };
  }
  const answer = { ...p, blocksize: record.blockSize, rank: record.rank, specialId: record.specialId, validate: 1, originalSize: -1n };
  return { code: 200, command, model, results: [packetJson(answer)], detail: `transfer ${record.specialId} to ${remote.hostId} submitted` };
}

export async function controlAction(ctx: RestListenerContext, id: V1Identity, method: string, cmd: JsonCommand | undefined): Promise<ActionResult> {
  if (cmd === undefined) return { code: 400, command: 'GetTransferInformation', model, detail: 'a body is required' };
  if (method === 'GET' && cmd.jsonClass === 'InformationJsonPacket') {
    if (cmd.idRequest) return transferInformation(ctx, id, cmd, model, 406);
    return { code: 406, command: 'GetInformation', model, detail: 'file information is served by /info' };
  }
  if (method === 'PUT' && cmd.jsonClass === 'RestartTransferJsonPacket') return restart(ctx, id, cmd);
  if (method === 'PUT' && cmd.jsonClass === 'StopOrCancelJsonPacket') return stopOrCancel(ctx, id, cmd);
  if (method === 'POST' && cmd.jsonClass === 'TransferRequestJsonPacket') return create(ctx, cmd);
  return { code: 412, command: method === 'POST' ? 'CreateTransfer' : method === 'PUT' ? 'StopOrCancelTransfer' : 'GetTransferInformation', model, detail: 'packet type not accepted with this method' };
}
