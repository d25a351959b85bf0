/**
 * The RUNNER row of a new transfer (database.md §6.1 "Row created by the requester", §9.1, and the
 * requested host's row of a partner's Request): the one builder every entry point uses (engine,
 * CLI asend/masend, REST v1 and v2, the v1 table editor, TRANSFER task, web UI, FileWatcher), so
 * the same order gives the same row. It lives in src/transfer, below src/operations, because the
 * engine builds the requested side's row too.
 */
import { isSendMode, TransferMode, withMd5, type Rule } from '../model/rule.js';
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { updateInfoMap } from '../tasks/transfer-info.js';
import { initialState } from './state.js';
import { GuidGenerator } from '../store/guid.js';

// Follow ids are their own time-based 64-bit ids (the Java 3.6.2 client prints a follow id
// distinct from, and drawn just before, the transfer id: captures/cli-output-java-3.6.2.md).
const followIds = new GuidGenerator();

/** A new follow id (not a transfer id: nothing else is keyed by it). */
export function newFollowId(): bigint {
  return followIds.next();
}

export interface NewRecordInput {
  specialId: bigint;
  /** OWNERREQ: the non-TLS host id of this server. */
  ownerId: string;
  /** This host's id towards the partner (its TLS id for a TLS partner). */
  requester: string;
  partner: string;
  /** The rule (its id and mode); a v1 table editor's row may name none yet (`idRule` ''). */
  rule: Pick<Rule, 'idRule' | 'mode'>;
  md5?: boolean;
  /** Through mode (a stream instead of a file): the rule's mode becomes its through variant. */
  through?: boolean;
  blockSize: number;
  /** The name as the order gave it (FILENAME = ORIGINALNAME). */
  file: string;
  /**
   * Size of the file to send, -1 unknown (receive modes, a submission's missing file). null: a file
   * to send now that was not found: no `ORIGINALSIZE` at all, as the original's direct transfer
   * writes it only once the file is found (its failure prints `"transferInformation":"{}"`,
   * captures/cli-output-java-3.6.2.md).
   */
  size: number | bigint | null;
  /** `-info` text; default `noinfo`. */
  fileInfo?: string;
  /** Do not append a follow id (`-nofollow`). */
  noFollow?: boolean;
  /** The follow id to append (tests); default a new one ({@link newFollowId}). */
  followId?: bigint;
  /** Extra transfer information (REST v2 `transferInfo`): free text and/or a JSON map, merged. */
  transferInfo?: string;
  updatedInfo: UpdatedInfo.UNKNOWN | UpdatedInfo.TOSUBMIT | UpdatedInfo.RUNNING;
  /**
   * RETRIEVEMODE (this row's owner sends); default the mode's direction, as for a row this host
   * requests. The v1 table editor's row may be owned by the requested host.
   */
  retrieveMode?: boolean;
  start: Date;
  now: Date;
}

/** True when the information already carries a follow id (`"follow"` key). */
export function hasFollow(info: string): boolean {
  return info.includes('"follow"');
}

/** The through variant of a mode: 1->5, 2->6, 3->7, 4->8 (through modes unchanged). */
export function throughVariant(mode: TransferMode): TransferMode {
  return mode >= TransferMode.SENDMODE && mode <= TransferMode.RECVMD5MODE ? ((mode + 4) as TransferMode) : mode;
}

/** The mode of a new transfer: the rule's, its MD5 variant with `md5`, its through variant with `through`. */
export function modeOf(rule: Pick<Rule, 'mode'>, md5: boolean | undefined, through: boolean | undefined): TransferMode {
  const base = md5 === true ? withMd5(rule.mode) : rule.mode;
  return through === true ? throughVariant(base) : base;
}

/**
 * The new row. A new follow id (its own 64-bit id, not the transfer id) is appended to FILEINFO as
 * `{"follow":<id>}`, unless `noFollow` or the information already has one; TRANSFERINFO gets only
 * `ORIGINALSIZE`, as the original writes it (captures/cli-output-java-3.6.2.md). Readers of the
 * follow id look in both columns (rows written before carry it in TRANSFERINFO too).
 */
export function newTransferRecord(i: NewRecordInput): TransferRecord {
  const mode = modeOf(i.rule, i.md5, i.through);
  let fileInfo = i.fileInfo ?? 'noinfo';
  if (i.noFollow !== true && !hasFollow(fileInfo)) {
    const follow = i.followId ?? newFollowId();
    fileInfo = fileInfo === '' ? `{"follow":${follow}}` : `${fileInfo} {"follow":${follow}}`;
  }
  return {
    specialId: i.specialId, requester: i.requester, requested: i.partner, ownerReq: i.ownerId,
    ...initialState(i.updatedInfo),
    blockSize: i.blockSize, mode,
    retrieveMode: i.retrieveMode ?? isSendMode(mode), isMoved: false,
    start: i.start, stop: i.now,
    idRule: i.rule.idRule, filename: i.file, originalName: i.file, fileInfo,
    transferInfo: updateInfoMap(i.transferInfo ?? '', i.size === null ? {} : { ORIGINALSIZE: i.size }),
  };
}

/**
 * The requested host's new row for a partner's Request (r66-protocol.md §9.2 step 8), made by the
 * one builder above: the partner's key, mode, names, information and size as given (no follow id
 * added), RUNNING from the start (it is inserted by its first write).
 */
export function requestedRecord(i: {
  key: Pick<TransferRecord, 'specialId' | 'requester' | 'requested' | 'ownerReq'>; rule: Rule; mode: TransferMode; isSender: boolean;
  blockSize: number; filename: string; fileInfo: string; size: bigint; now: Date;
}): TransferRecord {
  return newTransferRecord({
    specialId: i.key.specialId, ownerId: i.key.ownerReq, requester: i.key.requester, partner: i.key.requested, rule: { idRule: i.rule.idRule, mode: i.mode },
    retrieveMode: i.isSender, blockSize: i.blockSize, file: i.filename, fileInfo: i.fileInfo, noFollow: true, size: i.size,
    updatedInfo: UpdatedInfo.RUNNING, start: i.now, now: i.now,
  });
}
