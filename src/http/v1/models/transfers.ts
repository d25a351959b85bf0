/**
 * v1 `/transfers` (model DbTaskRunner, rest-v1.md §11.1). Keys are exact upper-case column names
 * (no case folding, unlike the other models). A record is found by id + REQUESTER + REQUESTED,
 * owned by this server. Create, update and delete are the order service's table-editor orders
 * (TransferOrders putRow, editRow, forget): this model only reads and shapes the columns.
 */
import { Role } from '../../../config/index.js';
import { ErrorCode, errorCodeFromChar, errorCodeFromName, type ErrorCodeInfo } from '../../../model/error-code.js';
import { isThroughMode, TransferMode } from '../../../model/rule.js';
import { TaskStep, type TransferKey, type TransferRecord } from '../../../model/transfer.js';
import { parseIsoDate } from '../../../model/iso-date.js';
import type { TransferFilter, TransferListOptions } from '../../../store/index.js';
import { infoInteger, readInfoMap } from '../../../tasks/transfer-info.js';
import { isIllegalTransition, type StateEdit } from '../../../transfer/state.js';
import { R66Error } from '../../../model/r66-error.js';
import type { RowEdit } from '../../../operations/index.js';
import type { RestListenerContext } from '../../context.js';
import type { JsonObject } from '../../json.js';
import { bool, int, long, ModelError, parseId, SQL, text, type DataModel, type ModelArgs } from './model.js';

/** v1 status encoding: the code character followed by two spaces (§13.2). */
const statusText = (c: ErrorCodeInfo): string => `${c.char}  `;
const noBackslash = (s: string): string => s.replace(/\\/g, '');

/** One transfer as v1 writes it (also the result of /info and /control transfer information). */
export function transferItem(r: TransferRecord): JsonObject {
  const map = readInfoMap(r.transferInfo);
  // The follow id is in FILEINFO (the original's place), in TRANSFERINFO on rows written before.
  const follow = map.follow ?? readInfoMap(r.fileInfo).follow;
  const item: JsonObject = {
    '@model': 'DbTaskRunner', SPECIALID: r.specialId, RETRIEVEMODE: r.retrieveMode, IDRULE: r.idRule, MODETRANS: BigInt(r.mode),
    FILENAME: r.filename, ORIGINALNAME: r.originalName, FILEINFO: noBackslash(r.fileInfo), ISMOVED: r.isMoved, BLOCKSZ: BigInt(r.blockSize),
    OWNERREQ: r.ownerReq, REQUESTER: r.requester, REQUESTED: r.requested, TRANSFERINFO: noBackslash(r.transferInfo),
    GLOBALSTEP: BigInt(r.globalStep), GLOBALLASTSTEP: BigInt(r.globalLastStep), STEP: BigInt(r.step), STEPSTATUS: statusText(r.stepStatus),
    INFOSTATUS: statusText(r.infoStatus), RANK: BigInt(r.rank), STARTTRANS: BigInt(r.start.getTime()), STOPTRANS: BigInt(r.stop.getTime()),
    UPDATEDINFO: BigInt(r.updatedInfo), ORIGINALSIZE: infoInteger(map.ORIGINALSIZE) ?? -1n,
    follow: follow === undefined || follow === null ? '' : String(follow),
  };
  if (map.RESCHEDULE === true) item.RESCHEDULE = true;
  if (isThroughMode(r.mode)) item.THROUGHMODE = true;
  return item;
}

/** STEPSTATUS/INFOSTATUS on input: the enum name or the one-character code. */
function status(args: ModelArgs, name: string): ErrorCodeInfo | undefined {
  const t = text(args, name, false);
  if (t === undefined) return undefined;
  const code = errorCodeFromName(t.trim()) ?? errorCodeFromChar(t.charAt(0));
  if (code === undefined) throw new ModelError(400, `${name} is not a status code`);
  return code;
}

/** STARTTRANS/STOPTRANS on input: epoch ms, 0 = now. */
function instant(ctx: RestListenerContext, args: ModelArgs, name: string): Date | undefined {
  const ms = long(args, name, false);
  if (ms === undefined) return undefined;
  return ms === 0n ? ctx.services.now() : new Date(Number(ms));
}

/** Filter dates: epoch ms or ISO 8601. */
function filterDate(args: ModelArgs, name: string): Date | undefined {
  const t = text(args, name, false);
  if (t === undefined || t.trim() === '') return undefined;
  if (/^-?\d+$/.test(t.trim())) return new Date(Number(t.trim()));
  const d = parseIsoDate(t.trim());
  if (d === undefined) throw new ModelError(400, `${name} must be epoch milliseconds or an ISO 8601 date`);
  return d;
}

function step(args: ModelArgs, name: string): TaskStep | undefined {
  const n = int(args, name, false);
  if (n !== undefined && (n < 0 || n > 5)) throw new ModelError(400, `${name} must be 0 to 5`);
  return n as TaskStep | undefined;
}

function mode(args: ModelArgs): TransferMode | undefined {
  const n = int(args, 'MODETRANS', false);
  if (n !== undefined && (n < 0 || n > 8)) throw new ModelError(400, 'MODETRANS must be 0 to 8');
  return n as TransferMode | undefined;
}

/**
 * The columns a create or an update gives (keys exact upper case), read (and refused when
 * malformed, in the columns' order) before anything is written. The state columns (GLOBALSTEP,
 * GLOBALLASTSTEP, STEP, STEPSTATUS, INFOSTATUS; UPDATEDINFO is ignored on input and forced to
 * TOSUBMIT: create and update submit the record, §11) are the state machine's `edit` move
 * (src/transfer/state.ts), which the order service applies.
 */
function editOf(ctx: RestListenerContext, args: ModelArgs): RowEdit {
  const s = (name: string): string | undefined => text(args, name, false);
  const info = s('TRANSFERINFO');
  const given: RowEdit['fields'] = {
    idRule: s('IDRULE'), mode: mode(args), retrieveMode: bool(args, 'RETRIEVEMODE', false), filename: s('FILENAME'), originalName: s('ORIGINALNAME'),
    fileInfo: s('FILEINFO'), isMoved: bool(args, 'ISMOVED', false), blockSize: int(args, 'BLOCKSZ', false),
    transferInfo: info === undefined ? undefined : info.trim() === '' ? '{}' : info,
  };
  const state: StateEdit = { globalStep: step(args, 'GLOBALSTEP'), globalLastStep: step(args, 'GLOBALLASTSTEP'), step: int(args, 'STEP', false), stepStatus: status(args, 'STEPSTATUS'), infoStatus: status(args, 'INFOSTATUS') };
  given.rank = int(args, 'RANK', false);
  given.start = instant(ctx, args, 'STARTTRANS');
  given.stop = instant(ctx, args, 'STOPTRANS');
  return { fields: defined(given), state: defined(state) };
}

/** The keys whose value is given. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** An edit the state machine or the row refuses is a 400 with its reason; nothing was written. */
async function edited<T>(id: bigint, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isIllegalTransition(err) || (err instanceof R66Error && (err.details.reason === 'fixedColumn' || err.code === ErrorCode.FileNotAllowed))) throw new ModelError(400, `transfer ${id}: ${err.message}`);
    // Another process runs it (operations/running-elsewhere.ts): the row is left to that process.
    if (err instanceof R66Error && err.details.reason === 'runningElsewhere') throw new ModelError(409, err.message);
    throw err;
  }
}

/** The key of `/transfers/<id>?REQUESTER=..&REQUESTED=..`; the owner is always this server. */
function keyOf(ctx: RestListenerContext, id: string, args: ModelArgs): TransferKey {
  const specialId = parseId(id, 'the transfer id');
  const requester = text(args, 'REQUESTER', false);
  const requested = text(args, 'REQUESTED', false);
  if (!requester || !requested) throw new ModelError(404, `transfer ${specialId}: REQUESTER and REQUESTED are needed to find it`);
  return { specialId, requester, requested, ownerReq: ctx.services.config.hostId };
}

async function list(ctx: RestListenerContext, args: ModelArgs): Promise<JsonObject[]> {
  const filter: TransferFilter = {};
  const owner = text(args, 'OWNERREQ', false);
  if (owner !== '*') filter.ownerReq = owner === undefined || owner === '' ? ctx.services.config.hostId : owner;
  const startId = text(args, 'STARTID', false);
  const stopId = text(args, 'STOPID', false);
  if (startId !== undefined && startId !== '') filter.specialIdFrom = parseId(startId, 'STARTID');
  if (stopId !== undefined && stopId !== '') filter.specialIdTo = parseId(stopId, 'STOPID');
  const rule = text(args, 'IDRULE', false);
  if (rule) filter.idRule = rule;
  const partner = text(args, 'PARTNER', false);
  if (partner) filter.partner = partner;
  const from = filterDate(args, 'STARTTRANS');
  const to = filterDate(args, 'STOPTRANS');
  if (from !== undefined) filter.startFrom = from;
  if (to !== undefined) filter.startTo = to;
  const flags = {
    pending: bool(args, 'PENDING', false) ?? false, transfer: bool(args, 'INTRANSFER', false) ?? false,
    error: bool(args, 'INERROR', false) ?? false, done: bool(args, 'DONE', false) ?? false,
  };
  // Flags combine with OR; none (or ALLSTATUS) = no status condition.
  if (!(bool(args, 'ALLSTATUS', false) ?? false) && Object.values(flags).some((f) => f)) filter.status = flags;
  const options: TransferListOptions = { orderBy: (bool(args, 'ORDERBYID', false) ?? false) ? 'specialId' : 'start', descending: true };
  const limit = int(args, 'LIMIT', false) ?? 0;
  if (limit > 0) options.limit = limit;
  return (await ctx.services.store.runner.list(filter, options)).map(transferItem);
}

/** Create is an upsert (§11), through the order service: an existing record is updated. */
async function create(ctx: RestListenerContext, args: ModelArgs): Promise<JsonObject> {
  const { services } = ctx;
  const missing = ['FILENAME', 'IDRULE', 'REQUESTER', 'REQUESTED'].filter((n) => !text(args, n, false));
  if (missing.length > 0) throw new ModelError(400, `not enough data to create a transfer: ${missing.join(', ')} required`);
  const owner = text(args, 'OWNERREQ', false);
  const key: TransferKey = {
    specialId: long(args, 'SPECIALID', false) ?? await services.store.nextTransferId(),
    requester: text(args, 'REQUESTER', false)!, requested: text(args, 'REQUESTED', false)!,
    ownerReq: owner === undefined || owner === '' ? services.config.hostId : owner,
  };
  const edit = editOf(ctx, args);
  return transferItem(await edited(key.specialId, () => services.orders.putRow(key, text(args, 'IDRULE', false)!, edit)));
}

async function update(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined> {
  const key = keyOf(ctx, id, args);
  // SPECIALID in a PUT body is ignored: the path names the record (§11.1 recommendation).
  const edit = editOf(ctx, args);
  const record = await edited(key.specialId, () => ctx.services.orders.editRow(key, edit));
  return record === undefined ? undefined : transferItem(record);
}

async function remove(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined> {
  const record = await ctx.services.orders.forget(keyOf(ctx, id, args));
  return record === undefined ? undefined : transferItem(record);
}

const { BIGINT, BIT, VARCHAR, INTEGER, CHAR, TIMESTAMP, LONGVARCHAR } = SQL;

export const transfersModel: DataModel = {
  fn: 'DbTaskRunner', base: 'transfers', model: 'DbTaskRunner', role: Role.SYSTEM,
  columns: {
    SPECIALID: BIGINT, RETRIEVEMODE: BIT, IDRULE: VARCHAR, MODETRANS: INTEGER, FILENAME: VARCHAR, ORIGINALNAME: VARCHAR, FILEINFO: LONGVARCHAR,
    ISMOVED: BIT, BLOCKSZ: INTEGER, OWNERREQ: VARCHAR, REQUESTER: VARCHAR, REQUESTED: VARCHAR, TRANSFERINFO: LONGVARCHAR, GLOBALSTEP: INTEGER,
    GLOBALLASTSTEP: INTEGER, STEP: INTEGER, STEPSTATUS: CHAR, INFOSTATUS: CHAR, RANK: INTEGER, STARTTRANS: TIMESTAMP, STOPTRANS: TIMESTAMP,
    UPDATEDINFO: INTEGER,
  },
  filters: {
    LIMIT: 'SQL row limit (0 = none)', ORDERBYID: 'true: by id descending, else by start descending', STARTID: 'lowest id', STOPID: 'highest id',
    IDRULE: 'rule', PARTNER: 'requester or requested', PENDING: 'to submit', INTRANSFER: 'running', INERROR: 'in error', DONE: 'done',
    ALLSTATUS: 'no status condition', STARTTRANS: 'start date from (epoch ms or ISO 8601)', STOPTRANS: 'start date to',
    OWNERREQ: 'owner (default this server, * = any)', limit: 'maximum items returned (default 100)',
  },
  list,
  get: async (ctx, id, args) => {
    const r = await ctx.services.store.runner.get(keyOf(ctx, id, args));
    return r === undefined ? undefined : transferItem(r);
  },
  create, update, remove,
};
