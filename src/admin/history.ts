/**
 * Transfer history export and purge (spec history.md), shared by REST v1 `/log`, REST v2
 * `/v2/server/logs` and the CLI `log-export`. Two flavours exist because the original has two
 * file formats and two purge rules; both write into the archive directory and only then purge.
 */
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/xml-write.js';
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import { runnersDocument, type Store, type TransferFilter } from '../store/index.js';
import { formatIsoLocal } from '../model/iso-date.js';
import { isLegal } from '../model/transfer-state.js';

/** Where an export goes and who "self" is. */
export interface HistoryContext {
  store: Store;
  /** Own host id: owner of the records and prefix of the file name. */
  hostId: string;
  /** Absolute archive directory (`<base><arch>`). */
  archiveDir: string;
  now?: () => Date;
}

/** The generic filter of history.md §2.1 (REST v1 `LogJsonPacket`, extended CLI). */
export interface LogExportRequest {
  start?: Date;
  stop?: Date;
  startId?: bigint;
  stopId?: bigint;
  rule?: string;
  /** Requester or requested host id. */
  partner?: string;
  pending?: boolean;
  transfer?: boolean;
  done?: boolean;
  error?: boolean;
  purge?: boolean;
  clean?: boolean;
}

export interface LogExportResult {
  file: string;
  exported: number;
  purged: number;
}

function v1Filter(hostId: string, r: LogExportRequest): TransferFilter {
  const f: TransferFilter = { ownerReq: hostId };
  if (r.start) f.startFrom = r.start;
  if (r.stop) f.startTo = r.stop;
  if (r.startId !== undefined) f.specialIdFrom = r.startId;
  if (r.stopId !== undefined) f.specialIdTo = r.stopId;
  if (r.rule) f.idRule = r.rule;
  if (r.partner) f.partner = r.partner;
  if (r.pending || r.transfer || r.done || r.error) {
    f.status = { pending: !!r.pending, transfer: !!r.transfer, done: !!r.done, error: !!r.error };
  }
  return f;
}

/** Writes `data` to `file`; a failed write leaves no partial file behind (history.md §1.1). */
async function writeExport(file: string, data: string): Promise<void> {
  try {
    await writeFileAtomic(file, data);
  } catch (err) {
    await unlink(file).catch(() => undefined);
    throw err;
  }
}

/**
 * REST v1 / JSON request export (history.md §1.1, §3): optional clean first, export of this
 * owner's matching records (id descending) to `<host>_<epoch ms>_runners.xml`, then, when asked and
 * something was exported, purge of the non-running matching records up to the highest exported
 * id, where only the done/error flags restrict the statuses.
 */
export async function exportHistoryV1(ctx: HistoryContext, req: LogExportRequest): Promise<LogExportResult> {
  const now = (ctx.now ?? (() => new Date()))();
  if (req.clean) await ctx.store.runner.markFinishedAsDone(ctx.hostId);
  const filter = v1Filter(ctx.hostId, req);
  const records = await ctx.store.runner.list(filter, { orderBy: 'specialId', descending: true });
  const file = join(ctx.archiveDir, `${ctx.hostId}_${now.getTime()}_runners.xml`);
  await writeExport(file, runnersDocument(records));
  let purged = 0;
  if (req.purge && records.length > 0) {
    const highest = records.reduce((max, r) => (r.specialId > max ? r.specialId : max), records[0]!.specialId);
    const purgeFilter = v1Filter(ctx.hostId, { ...req, pending: false, transfer: false });
    purgeFilter.specialIdTo = req.stopId !== undefined && req.stopId < highest ? req.stopId : highest;
    purgeFilter.notRunning = true;
    purged = await ctx.store.runner.deleteWhere(purgeFilter);
  }
  return { file, exported: records.length, purged };
}

/** The REST v2 filter (history.md §4.3): no owner condition. */
export interface LogExportV2Request {
  status?: UpdatedInfo;
  rule?: string;
  start?: Date;
  stop?: Date;
  startId?: bigint;
  stopId?: bigint;
  requester?: string;
  purge?: boolean;
  clean?: boolean;
}

const esc = (t: string): string => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One `runner` of the v2 binding (history.md §1.2): names for steps and statuses, epoch ms dates. */
function runnerV2Xml(r: TransferRecord): string {
  const fields: Array<[string, string]> = [
    ['specialid', r.specialId.toString()], ['retrievemode', String(r.retrieveMode)], ['idrule', r.idRule],
    ['modetrans', String(r.mode)], ['filename', r.filename], ['originalname', r.originalName], ['fileinfo', r.fileInfo],
    ['ismoved', String(r.isMoved)], ['blocksz', String(r.blockSize)], ['ownerreq', r.ownerReq], ['requester', r.requester],
    ['requested', r.requested], ['transferinfo', r.transferInfo], ['globalstep', TaskStep[r.globalStep] ?? 'NOTASK'],
    ['globallaststep', TaskStep[r.globalLastStep] ?? 'NOTASK'], ['step', String(r.step)], ['stepstatus', r.stepStatus.name],
    ['infostatus', r.infoStatus.name], ['rank', String(r.rank)], ['starttrans', String(r.start.getTime())],
    ['stoptrans', String(r.stop.getTime())],
  ];
  return `  <runner>\n${fields.map(([k, v]) => `    <${k}>${esc(v)}</${k}>`).join('\n')}\n  </runner>`;
}

/**
 * REST v2 export (history.md §1.2, §3): matching records of every owner to
 * `<host>_export_<ISO date-time>.xml`, then purge of every exported record, then clean of the
 * exported records that finished well (ALLDONETASK + CompleteOk -> DONE).
 */
export async function exportHistoryV2(ctx: HistoryContext, req: LogExportV2Request): Promise<LogExportResult> {
  const now = (ctx.now ?? (() => new Date()))();
  const filter: TransferFilter = {};
  if (req.status !== undefined) filter.updatedInfo = [req.status];
  if (req.rule) filter.idRule = req.rule;
  if (req.start) filter.startFrom = req.start;
  if (req.stop) filter.startTo = req.stop;
  if (req.startId !== undefined) filter.specialIdFrom = req.startId;
  if (req.stopId !== undefined) filter.specialIdTo = req.stopId;
  if (req.requester) filter.requester = req.requester;
  const records = await ctx.store.runner.list(filter, { orderBy: 'specialId' });
  const file = join(ctx.archiveDir, `${ctx.hostId}_export_${formatIsoLocal(now)}.xml`);
  const body = records.length === 0 ? '<taskrunners/>\n' : `<taskrunners>\n${records.map(runnerV2Xml).join('\n')}\n</taskrunners>\n`;
  await writeExport(file, body);
  let purged = 0;
  if (req.purge) {
    for (const r of records) if (await ctx.store.runner.delete(r)) purged++;
  } else if (req.clean) {
    for (const r of records) {
      // The state machine's `clean` move (the same rows as before: complete, OK, not yet DONE).
      if (isLegal(r, 'clean')) await ctx.store.runner.move(r, { kind: 'clean' }, { stop: r.stop });
    }
  }
  return { file, exported: records.length, purged };
}
