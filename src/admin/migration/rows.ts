/**
 * The original's rows, as H2's CSV gives them, turned into our model records (database.md §3, §4).
 * A value that cannot be read makes its row skipped with the reason; a column an old schema lacks
 * takes the value the original's upgrade gives it (database.md §8.3: TRANSFERINFO '{}', ISACTIVE
 * true, ISPROXIFIED false).
 */
import { decodeHostIds, decodeTasks } from '../../config/index.js';
import { parseErrorCode } from '../../model/error-code.js';
import type { HostConfig } from '../../model/host-config.js';
import type { Host } from '../../model/host.js';
import type { Limits } from '../../model/limits.js';
import type { MultipleMonitor } from '../../model/multiple-monitor.js';
import type { Rule } from '../../model/rule.js';
import { toUpdatedInfo, type TransferRecord } from '../../model/transfer.js';
import { parseLocalTimestamp } from '../../store/index.js';
import type { CsvRecord } from './csv.js';

/** A value that cannot be read: the row is skipped with this reason. */
export class RowError extends Error {}

function text(r: CsvRecord, col: string, fallback = ''): string {
  return r[col] ?? fallback;
}

function required(r: CsvRecord, col: string): string {
  const v = r[col];
  if (v === null || v === undefined || v === '') throw new RowError(`${col} is empty`);
  return v;
}

function int(r: CsvRecord, col: string, fallback?: number): number {
  const v = r[col];
  if ((v === null || v === undefined || v === '') && fallback !== undefined) return fallback;
  if (v === null || v === undefined || !/^\s*-?\d+\s*$/.test(v)) throw new RowError(`${col} ${JSON.stringify(v)} is not an integer`);
  return Number(v);
}

function big(r: CsvRecord, col: string): bigint {
  const v = r[col];
  if (v === null || v === undefined || !/^\s*-?\d+\s*$/.test(v)) throw new RowError(`${col} ${JSON.stringify(v)} is not an integer`);
  return BigInt(v.trim());
}

function bool(r: CsvRecord, col: string, fallback?: boolean): boolean {
  const v = r[col];
  if ((v === null || v === undefined) && fallback !== undefined) return fallback;
  const t = (v ?? '').trim().toLowerCase();
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw new RowError(`${col} ${JSON.stringify(v)} is not a boolean`);
}

function timestamp(r: CsvRecord, col: string): Date {
  const d = parseLocalTimestamp(required(r, col));
  if (Number.isNaN(d.getTime())) throw new RowError(`${col} ${JSON.stringify(r[col])} is not a timestamp`);
  return d;
}

export function hostOf(r: CsvRecord): Host {
  const key = text(r, 'HOSTKEY');
  return {
    hostId: required(r, 'HOSTID'), address: text(r, 'ADDRESS'), port: int(r, 'PORT'), isSsl: bool(r, 'ISSSL'),
    hostKey: key === '' ? null : Buffer.from(key, 'latin1'), adminRole: bool(r, 'ADMINROLE'), isClient: bool(r, 'ISCLIENT'),
    isActive: bool(r, 'ISACTIVE', true), isProxified: bool(r, 'ISPROXIFIED', false), updatedInfo: int(r, 'UPDATEDINFO', 0),
  };
}

export function ruleOf(r: CsvRecord): Rule {
  return {
    idRule: required(r, 'IDRULE'), hostIds: decodeHostIds(r.HOSTIDS), mode: int(r, 'MODETRANS', 0),
    recvPath: text(r, 'RECVPATH'), sendPath: text(r, 'SENDPATH'), archivePath: text(r, 'ARCHIVEPATH'), workPath: text(r, 'WORKPATH'),
    rPreTasks: decodeTasks(r.RPRETASKS), rPostTasks: decodeTasks(r.RPOSTTASKS), rErrorTasks: decodeTasks(r.RERRORTASKS),
    sPreTasks: decodeTasks(r.SPRETASKS), sPostTasks: decodeTasks(r.SPOSTTASKS), sErrorTasks: decodeTasks(r.SERRORTASKS),
    updatedInfo: int(r, 'UPDATEDINFO', 0),
  };
}

export function limitsOf(r: CsvRecord): Limits {
  return {
    hostId: required(r, 'HOSTID'), readGlobalLimit: int(r, 'READGLOBALLIMIT', 0), writeGlobalLimit: int(r, 'WRITEGLOBALLIMIT', 0),
    readSessionLimit: int(r, 'READSESSIONLIMIT', 0), writeSessionLimit: int(r, 'WRITESESSIONLIMIT', 0),
    delayLimit: int(r, 'DELAYLIMIT', 0), updatedInfo: int(r, 'UPDATEDINFO', 0),
  };
}

export function hostConfigOf(r: CsvRecord): HostConfig {
  return {
    hostId: required(r, 'HOSTID'), business: text(r, 'BUSINESS'), roles: text(r, 'ROLES'), aliases: text(r, 'ALIASES'),
    others: text(r, 'OTHERS'), updatedInfo: int(r, 'UPDATEDINFO', 0),
  };
}

export function multipleMonitorOf(r: CsvRecord): MultipleMonitor {
  return { hostId: required(r, 'HOSTID'), countConfig: int(r, 'COUNTCONFIG', 0), countHost: int(r, 'COUNTHOST', 0), countRule: int(r, 'COUNTRULE', 0) };
}

/** A RUNNER row; FILENAME is kept as stored (serverhome-relative names are resolved where read). */
export function transferOf(r: CsvRecord): TransferRecord {
  return {
    specialId: big(r, 'SPECIALID'), ownerReq: required(r, 'OWNERREQ'), requester: required(r, 'REQUESTER'), requested: required(r, 'REQUESTED'),
    globalStep: int(r, 'GLOBALSTEP'), globalLastStep: int(r, 'GLOBALLASTSTEP'), step: int(r, 'STEP'), rank: int(r, 'RANK'),
    blockSize: int(r, 'BLOCKSZ'), mode: int(r, 'MODETRANS'), updatedInfo: toUpdatedInfo(int(r, 'UPDATEDINFO')),
    stepStatus: parseErrorCode(r.STEPSTATUS), infoStatus: parseErrorCode(r.INFOSTATUS),
    retrieveMode: bool(r, 'RETRIEVEMODE'), isMoved: bool(r, 'ISMOVED'), start: timestamp(r, 'STARTTRANS'), stop: timestamp(r, 'STOPTRANS'),
    idRule: required(r, 'IDRULE'), filename: text(r, 'FILENAME'), originalName: text(r, 'ORIGINALNAME'),
    fileInfo: text(r, 'FILEINFO'), transferInfo: text(r, 'TRANSFERINFO', '{}'),
  };
}
