/**
 * v1 `/transfers` (model DbTaskRunner, rest-v1.md §11.1). Keys are exact upper-case column names
 * (no case folding, unlike the other models). A record is found by id + REQUESTER + REQUESTED,
 * owned by this server.
 */
import { Role } from '../../../config/index.js';
import { errorCodeFromChar, errorCodeFromName, type ErrorCodeInfo } from '../../../model/error-code.js';
import { isSendMode, isThroughMode, TransferMode } from '../../../model/rule.js';
import { TaskStep, UpdatedInfo, type TransferKey, type TransferRecord } from '../../../model/transfer.js';
import { parseIsoDate } from '../../../model/iso-date.js';
import type { TransferFilter, TransferListOptions } from '../../../store/index.js';
import { infoInteger, readInfoMap } from '../../../tasks/transfer-info.js';
import { IllegalTransitionError, initialState, transition, type StateEdit } from '../../../transfer/state.js';
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
 * Applies the supplied columns over `r` (create and update share this; keys exact upper case).
 * The state columns (GLOBALSTEP, GLOBALLASTSTEP, STEP, STEPSTATUS, INFOSTATUS, and UPDATEDINFO,
 * ignored on input and forced to TOSUBMIT: create and update submit the record, §11) change
 * through the state machine's `edit` move (src/transfer/state.ts): an illegal one (a row a
 * transfer writes now, GLOBALLASTSTEP 5, GLOBALSTEP behind GLOBALLASTSTEP, the steps of a finished
 * row) is a 400 with its reason, and `r` is left as it was.
 */
function applyFields(ctx: RestListenerContext, r: TransferRecord, args: ModelArgs): void {
  const s = (name: string): string | undefined => text(args, name, false);
  // Every value is read (and refused when malformed, in the columns' order) before `r` changes.
  const fields: Partial<TransferRecord> = {
    idRule: s('IDRULE') ?? r.idRule,
    mode: mode(args) ?? r.mode,
    retrieveMode: bool(args, 'RETRIEVEMODE', false) ?? r.retrieveMode,
    filename: s('FILENAME') ?? r.filename,
    originalName: s('ORIGINALNAME') ?? r.originalName,
    fileInfo: s('FILEINFO') ?? r.fileInfo,
    isMoved: bool(args, 'ISMOVED', false) ?? r.isMoved,
    blockSize: int(args, 'BLOCKSZ', false) ?? r.blockSize,
  };
  const info = s('TRANSFERINFO');
  if (info !== undefined) fields.transferInfo = info.trim() === '' ? '{}' : info;
  const set: StateEdit = {};
  const globalStep = step(args, 'GLOBALSTEP');
  if (globalStep !== undefined) set.globalStep = globalStep;
  const globalLastStep = step(args, 'GLOBALLASTSTEP');
  if (globalLastStep !== undefined) set.globalLastStep = globalLastStep;
  const subStep = int(args, 'STEP', false);
  if (subStep !== undefined) set.step = subStep;
  const stepStatus = status(args, 'STEPSTATUS');
  if (stepStatus !== undefined) set.stepStatus = stepStatus;
  const infoStatus = status(args, 'INFOSTATUS');
  if (infoStatus !== undefined) set.infoStatus = infoStatus;
  fields.rank = int(args, 'RANK', false) ?? r.rank;
  fields.start = instant(ctx, args, 'STARTTRANS') ?? r.start;
  fields.stop = instant(ctx, args, 'STOPTRANS') ?? r.stop;
  let change;
  try {
    change = transition(r, { kind: 'edit', set });
  } catch (err) {
    if (err instanceof IllegalTransitionError) throw new ModelError(400, `transfer ${r.specialId}: ${err.message}`);
    throw err;
  }
  Object.assign(r, fields, change);
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
  const existing = await services.store.runner.get(key);
  const rule = existing === undefined ? await services.store.rules.get(text(args, 'IDRULE', false)!) : undefined;
  const now = services.now();
  const ruleMode = rule?.mode ?? TransferMode.SENDMODE;
  const record: TransferRecord = existing ?? {
    // The state columns of a new row from the state machine (state.ts); this model is the table
    // editor of v1 (role SYSTEM): the columns the request gives are then applied as given.
    ...key, ...initialState(UpdatedInfo.TOSUBMIT), blockSize: services.config.limits.blockSize, mode: ruleMode,
    // The owner sends when it is the requester of a send mode, or the requested of a receive mode.
    retrieveMode: (key.ownerReq === key.requester) === isSendMode(mode(args) ?? ruleMode),
    isMoved: false, start: now, stop: now, idRule: '', filename: '', originalName: '', fileInfo: '', transferInfo: '{}',
  };
  applyFields(ctx, record, args);
  if (record.originalName === '') record.originalName = record.filename;
  // Create is an upsert (§11): an existing record is updated.
  await services.store.runner.upsert(record);
  return transferItem(record);
}

async function update(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined> {
  const record = await ctx.services.store.runner.get(keyOf(ctx, id, args));
  if (record === undefined) return undefined;
  // SPECIALID in a PUT body is ignored: the path names the record (§11.1 recommendation).
  applyFields(ctx, record, args);
  await ctx.services.store.runner.update(record);
  return transferItem(record);
}

async function remove(ctx: RestListenerContext, id: string, args: ModelArgs): Promise<JsonObject | undefined> {
  const record = await ctx.services.store.runner.get(keyOf(ctx, id, args));
  if (record === undefined) return undefined;
  await ctx.services.store.runner.delete(record);
  return transferItem(record);
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
