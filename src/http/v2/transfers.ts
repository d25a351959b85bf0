/** `/v2/transfers` (rest-v2.md §10.1-10.6): list, add, read, stop, cancel, restart, delete. */
import { z } from 'zod';
import { Role } from '../../config/index.js';
import { UpdatedInfo, type TransferKey, type TransferRecord } from '../../model/transfer.js';
import { parseIsoDate } from '../../model/iso-date.js';
import type { TransferFilter, TransferListOptions } from '../../store/index.js';
import type { RestListenerContext } from '../context.js';
import { R66Error } from '../../model/r66-error.js';
import { v2OrderRefusal, v2TransferRefusal } from '../error-answer.js';
import { TRANSFER_STATUS, transferToJson } from './converters.js';
import { ErrorList, V2Code, V2Status } from './errors.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { parseBody, parseQuery, qEnum, qInt, qText } from './validate.js';
import { transferSchema } from './schemas.js';

const ORDERS = ['ascId', 'descId', 'ascFile', 'descFile', 'ascStart', 'descStart', 'ascStop', 'descStop'] as const;

const listQuery = z.object({
  limit: qInt.describe('page size; <= 0 = no limit (default 20)'),
  offset: qInt.describe('rows skipped (default 0)'),
  order: qEnum(ORDERS).describe('sort order (default ascId)'),
  ruleID: qText.describe('rule equals'),
  ruleName: qText.describe('alias of ruleID (docs spelling)'),
  partner: qText.describe('requested host equals'),
  status: qEnum(TRANSFER_STATUS).describe('status equals'),
  filename: qText.describe('current file name equals'),
  startTrans: qText.describe('start date >= (ISO 8601)'),
  stopTrans: qText.describe('start date <= (ISO 8601)'),
  followId: qText.describe('transfer information carries "follow":<followId>'),
  countOrder: qText.describe('true = count only'),
});

export const transferAddBody = z.object({
  ruleName: z.string(),
  filename: z.string(),
  requested: z.string(),
  blockSize: z.number().int().positive(),
  fileInfo: z.string(),
  transferInfo: z.string(),
  start: z.string().describe('ISO 8601 date-time, not in the past'),
});

/** The own host id a partner knows us by (its TLS flag decides), as requester of our transfers. */
async function ownIdFor(ctx: RestListenerContext, partner: string): Promise<string> {
  const host = await ctx.services.store.hosts.get(partner);
  const { config } = ctx.services;
  return host?.isSsl && config.sslHostId !== undefined ? config.sslHostId : config.hostId;
}

/** `{id}` = `<number>_<requested>`; only transfers this server requested are addressable (§10.1). */
async function findTransfer(req: V2Request): Promise<TransferRecord> {
  const m = /^(-?\d{1,19})_(.+)$/.exec(req.params.id ?? '');
  // A bare id is the usual mistake: say what the path expects instead of an empty 404.
  if (m === null) throw new V2Status(404, {}, `transfer id '${req.params.id ?? ''}' not understood: expected <id>_<requested>, e.g. 1795761826693_hostb (the "id" and "requested" of GET /v2/transfers)`);
  const specialId = BigInt(m[1]!);
  if (specialId < -(2n ** 63n) || specialId >= 2n ** 63n) throw new V2Status(404, {}, `transfer id ${m[1]!} is not a signed 64-bit number`);
  const key: TransferKey = { specialId, requested: m[2]!, requester: await ownIdFor(req.ctx, m[2]!), ownerReq: req.ctx.services.config.hostId };
  const record = await req.ctx.services.store.runner.get(key);
  if (record === undefined) throw new V2Status(404, {}, `no transfer ${specialId} with ${key.requested} requested by this host`);
  return record;
}

function boolOrFalse(text: string | undefined): boolean {
  return text !== undefined && text.toLowerCase() === 'true';
}

async function list(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(listQuery, req.query, errors);
  const filter: TransferFilter = {};
  const rule = q.ruleID ?? q.ruleName;
  if (rule !== undefined) filter.idRule = rule;
  if (q.partner !== undefined) filter.requested = q.partner;
  if (q.status !== undefined) filter.updatedInfo = [TRANSFER_STATUS.indexOf(q.status) as UpdatedInfo];
  if (q.startTrans !== undefined) {
    const d = parseIsoDate(q.startTrans);
    if (d === undefined) errors.add(V2Code.IllegalParameterValue, `'${q.startTrans}'`, 'start');
    else filter.startFrom = d;
  }
  if (q.stopTrans !== undefined) {
    const d = parseIsoDate(q.stopTrans);
    if (d === undefined) errors.add(V2Code.IllegalParameterValue, `'${q.stopTrans}'`, 'stop');
    else filter.startTo = d;
  }
  if (q.followId !== undefined) {
    if (!/^-?\d{1,19}$/.test(q.followId)) errors.add(V2Code.IllegalParameterValue, `'${q.followId}'`, 'followId');
    else filter.followId = BigInt(q.followId);
  }
  errors.throwIfAny();
  const runner = req.ctx.services.store.runner;
  // countOrder: an invalid value is silently false (rest-v2.md §9).
  if (boolOrFalse(req.query.countOrder) && q.filename === undefined) return json(200, { totalResults: await runner.count(filter) });
  const order = q.order ?? 'ascId';
  const limit = q.limit ?? 20;
  const offset = q.offset ?? 0;
  const byFile = order.endsWith('File') || q.filename !== undefined;
  const options: TransferListOptions = {
    orderBy: order.endsWith('Start') ? 'start' : order.endsWith('Stop') ? 'stop' : 'specialId',
    descending: order.startsWith('desc'),
  };
  // File name order and filter are not store features: those lists are sorted and paged here.
  if (!byFile) {
    if (limit > 0) options.limit = limit;
    if (offset > 0) options.offset = offset;
  }
  let rows = await runner.list(filter, options);
  if (byFile) {
    if (q.filename !== undefined) rows = rows.filter((r) => r.filename === q.filename);
    if (order.endsWith('File')) {
      rows.sort((a, b) => (a.originalName < b.originalName ? -1 : a.originalName > b.originalName ? 1 : 0));
      if (order.startsWith('desc')) rows.reverse();
    }
    if (boolOrFalse(req.query.countOrder)) return json(200, { totalResults: rows.length });
    rows = rows.slice(Math.max(offset, 0), limit > 0 ? Math.max(offset, 0) + limit : undefined);
  }
  // totalResults is the size of the page, as the original answers (rest-v2.md §12).
  return json(200, { results: rows.map(transferToJson), totalResults: rows.length });
}

async function add(req: V2Request) {
  const { services } = req.ctx;
  const errors = new ErrorList();
  // Unknown fields are silently ignored on this operation (§10.3).
  const b = parseBody(transferAddBody, req.body ?? {}, errors, { required: ['ruleName', 'filename', 'requested'], ignoreUnknown: true });
  let start = services.now();
  if (b.start !== undefined) {
    const d = parseIsoDate(b.start);
    if (d === undefined || d.getTime() < start.getTime() - 1000) errors.add(V2Code.IllegalFieldValue, JSON.stringify(b.start), 'start');
    else start = d;
  }
  errors.throwIfAny();
  let record: TransferRecord;
  try {
    // The one order service: same row as the CLI and v1 (follow id, size), file policy applied.
    record = await services.orders.submit({
      partner: b.requested!, rule: b.ruleName!, file: b.filename!, start,
      ...(b.blockSize !== undefined ? { blockSize: b.blockSize } : {}), ...(b.fileInfo !== undefined ? { fileInfo: b.fileInfo } : {}),
      ...(b.transferInfo !== undefined ? { transferInfo: b.transferInfo } : {}),
    });
  } catch (err) {
    throw v2OrderRefusal(err, { rule: b.ruleName!, partner: b.requested! });
  }
  const uri = `/v2/transfers/${record.specialId}_${encodeURIComponent(record.requested)}`;
  return json(201, transferToJson(record), { 'transfer-uri': uri, transferURI: uri });
}


/**
 * Stop or cancel (§10.5): the engine interrupts a running transfer, otherwise the record is marked.
 * Only the status columns change: the original also wrote "H"/"K" over TRANSFERINFO, which lost its
 * map (follow id, the scheduler's retry count, RESCHEDULE counters); see docs/compatibility.md.
 */
async function interrupt(req: V2Request, record: TransferRecord, kind: 'stop' | 'cancel'): Promise<TransferRecord> {
  const { orders } = req.ctx.services;
  const result = await refused(() => (kind === 'stop' ? orders.stop(record) : orders.cancel(record)));
  return result.record ?? record;
}

/** An order the service refuses (a transfer another process runs: 409) as its v2 answer. */
async function refused<T>(order: () => Promise<T>): Promise<T> {
  try {
    return await order();
  } catch (err) {
    if (!(err instanceof R66Error)) throw err;
    throw v2TransferRefusal(err);
  }
}

async function stopOrCancel(req: V2Request, kind: 'stop' | 'cancel') {
  return json(200, transferToJson(await interrupt(req, await findTransfer(req), kind)));
}

/** Restart (§10.6): a running transfer is stopped first, then the row goes back to its restart point. */
async function restart(req: V2Request) {
  const stopped = await interrupt(req, await findTransfer(req), 'stop');
  const result = await refused(() => req.ctx.services.orders.restart(stopped));
  return json(200, transferToJson(result.record ?? stopped));
}

/** Delete (§10.6) through the order service: initial state 404, running on this host 409. */
async function remove(req: V2Request) {
  await refused(async () => req.ctx.services.orders.remove(await findTransfer(req)));
  return { status: 204 };
}

const idPath = '/v2/transfers/{id}';
const fn = 'DbTaskRunner' as const;
const notFound = { 404: { description: 'no such transfer, or an id not of the form <id>_<requested>: a text/plain line saying which' } };

export const transferOperations: V2Operation[] = [
  { method: 'GET', path: '/v2/transfers', fn, role: Role.READONLY, consumes: 'application/x-www-form-urlencoded', summary: 'List transfers',
    query: listQuery, responses: { 200: { description: 'a page of transfers' } }, handler: list },
  { method: 'POST', path: '/v2/transfers', fn, role: Role.TRANSFER, consumes: 'application/json', summary: 'Add a transfer', needsBody: true,
    body: transferAddBody, responses: { 201: { description: 'the new transfer', schema: transferSchema } }, handler: add },
  { method: 'GET', path: idPath, fn, role: Role.READONLY, consumes: '*/*', summary: 'Read a transfer',
    responses: { 200: { description: 'the transfer', schema: transferSchema }, ...notFound }, handler: async (r) => json(200, transferToJson(await findTransfer(r))) },
  { method: 'DELETE', path: idPath, fn, role: Role.SYSTEM, consumes: '*/*', summary: 'Delete a transfer record',
    responses: { 204: { description: 'deleted' }, ...notFound }, handler: remove },
  { method: 'PUT', path: `${idPath}/stop`, fn, role: Role.SYSTEM, consumes: '*/*', summary: 'Stop a transfer',
    responses: { 200: { description: 'the transfer after the change', schema: transferSchema }, ...notFound }, handler: (r) => stopOrCancel(r, 'stop') },
  { method: 'PUT', path: `${idPath}/cancel`, fn, role: Role.SYSTEM, consumes: '*/*', summary: 'Cancel a transfer',
    responses: { 200: { description: 'the transfer after the change', schema: transferSchema }, ...notFound }, handler: (r) => stopOrCancel(r, 'cancel') },
  { method: 'PUT', path: `${idPath}/restart`, fn, role: Role.SYSTEM, consumes: '*/*', summary: 'Restart a transfer',
    responses: { 200: { description: 'the transfer after the change', schema: transferSchema }, ...notFound }, handler: restart },
];
