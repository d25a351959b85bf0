/**
 * v1 `/control` (model Control, rest-v1.md §12.7): transfer information, restart, stop/cancel and
 * creation of a transfer to submit. Orders go through the transfer engine when it is plugged in,
 * else through the stored record (transfer-control.ts).
 */
import { hasRole, Role } from '../../config/index.js';
import { ErrorCode } from '../../model/error-code.js';
import { isMd5Mode, isSendMode, ruleAllowsHost, withMd5 } from '../../model/rule.js';
import { ILLEGAL_SPECIAL_ID, TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../../model/transfer.js';
import type { JsonCommand, JsonCommandOf } from '../../protocol/index.js';
import type { RestListenerContext } from '../context.js';
import { restartTransfer, stopOrCancelTransfer } from '../transfer-control.js';
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
  const result = await restartTransfer(ctx.services, key, p.restarttime === null ? undefined : new Date(p.restarttime));
  return { code: RESTART_OK.has(result.code.char) ? 200 : 406, command, model, results: [packetJson(p)], detail: result.message };
}

async function stopOrCancel(ctx: RestListenerContext, id: V1Identity, p: JsonCommandOf<'StopOrCancelJsonPacket'>): Promise<ActionResult> {
  const command = 'StopOrCancelTransfer';
  if (!hasRole(id.roles, Role.SYSTEM) && !isSelf(ctx, id)) return { code: 401, httpStatus: 401, command, model, detail: 'role SYSTEM required' };
  const key = keyOf(ctx, p);
  if (key === undefined) return { code: 404, command, model, results: [packetJson(p)], detail: 'requester, requested and specialid are required' };
  // Sub-type 10 cancels, anything else stops (the Java client sends 9 or 10).
  const result = await stopOrCancelTransfer(ctx.services, key, p.requestUserPacket === 10 ? 'cancel' : 'stop');
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
  const { config, store } = services;
  const rule = p.rulename ? await store.rules.get(p.rulename) : undefined;
  if (rule === undefined) return refuse(`rule ${p.rulename ?? ''} not found`);
  const remote = p.requested ? await store.hosts.get(p.requested) : undefined;
  if (remote === undefined) return refuse(`host ${p.requested ?? ''} is not known`);
  if (!p.filename) return refuse('filename is required');
  const requester = remote.isSsl && config.sslHostId !== undefined ? config.sslHostId : config.hostId;
  if (!ruleAllowsHost(rule, remote.hostId)) return refuse(`host ${remote.hostId} may not use rule ${rule.idRule}`);
  const start = startOf(ctx, p);
  let record: TransferRecord | undefined;
  if (p.specialId !== 0n && p.specialId !== ILLEGAL_SPECIAL_ID) {
    // A non-zero id re-validates an existing transfer of ours with that partner.
    const key = { specialId: p.specialId, requester, requested: remote.hostId, ownerReq: config.hostId };
    record = await store.runner.get(key);
    if (record === undefined) return refuse(`transfer ${p.specialId} not found`);
    await store.runner.updateState(key, { updatedInfo: UpdatedInfo.TOSUBMIT, start });
  } else {
    const mode = isMd5Mode(p.mode) ? withMd5(rule.mode) : rule.mode;
    record = {
      specialId: await store.nextTransferId(), requester, requested: remote.hostId, ownerReq: config.hostId,
      globalStep: TaskStep.NOTASK, globalLastStep: TaskStep.NOTASK, step: -1, rank: 0,
      blockSize: p.blocksize > 0 ? p.blocksize : config.limits.blockSize, mode, updatedInfo: UpdatedInfo.TOSUBMIT,
      stepStatus: ErrorCode.Unknown, infoStatus: ErrorCode.Unknown, retrieveMode: isSendMode(mode), isMoved: false, start, stop: start,
      idRule: rule.idRule, filename: p.filename, originalName: p.filename, fileInfo: p.fileInformation, transferInfo: '{}',
    };
    // A TOSUBMIT row of this owner is what the scheduler starts (database.md §9.1).
    await store.runner.insert(record);
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
