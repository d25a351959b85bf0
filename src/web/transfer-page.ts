/**
 * One page of transfers, newest start first, that stays fast on a large RUNNER table: keyset
 * paging on STARTTRANS (the cursor is the last start shown and how many rows with that same start
 * were shown), and, when no status or step is chosen, one query per UPDATEDINFO value merged here,
 * so each query walks the (UPDATEDINFO, OWNERREQ, STARTTRANS) index in order instead of sorting the
 * table. Filters on columns without an index (rule, partner) still scan until a page is full.
 */
import { UpdatedInfo, type TransferRecord } from '../model/transfer.js';
import type { RunnerRepository, TransferFilter } from '../store/index.js';

export interface TransferPage {
  rows: TransferRecord[];
  /** Cursor of the next (older) page, when there is one. */
  next?: string;
}

const ALL_STATUSES = [UpdatedInfo.UNKNOWN, UpdatedInfo.NOTUPDATED, UpdatedInfo.INTERRUPTED, UpdatedInfo.TOSUBMIT, UpdatedInfo.INERROR, UpdatedInfo.RUNNING, UpdatedInfo.DONE];

/** `<start ms>.<rows with that start already shown>`; undefined when malformed. */
export function parseCursor(text: string | undefined): { start: number; tie: number } | undefined {
  const m = /^(-?\d{1,15})\.(\d{1,6})$/.exec(text ?? '');
  return m === null ? undefined : { start: Number(m[1]), tie: Number(m[2]) };
}

const newestFirst = (x: TransferRecord, y: TransferRecord): number =>
  y.start.getTime() - x.start.getTime() || (y.specialId > x.specialId ? 1 : y.specialId < x.specialId ? -1 : 0) || x.updatedInfo - y.updatedInfo;

export async function transferPage(runner: RunnerRepository, filter: TransferFilter, limit: number, cursorText?: string): Promise<TransferPage> {
  const cursor = parseCursor(cursorText);
  const f: TransferFilter = { ...filter };
  if (cursor !== undefined) {
    const before = new Date(cursor.start);
    if (f.startTo === undefined || f.startTo.getTime() > before.getTime()) f.startTo = before;
  }
  const tie = cursor?.tie ?? 0;
  // Rows sharing the cursor's start were partly shown: fetch enough to skip them.
  const want = limit + tie + 1;
  // A GLOBALSTEP filter has its own ordered index (GLOBALSTEP, OWNERREQ, STARTTRANS): no split then.
  const split = f.updatedInfo === undefined && f.status === undefined && f.globalStep === undefined;
  const parts = split
    ? await Promise.all(ALL_STATUSES.map((u) => runner.list({ ...f, updatedInfo: [u] }, { orderBy: 'start', descending: true, limit: want })))
    : [await runner.list(f, { orderBy: 'start', descending: true, limit: want })];
  let rows = parts.flat().sort(newestFirst);
  if (cursor !== undefined) {
    let skipped = 0;
    rows = rows.filter((r) => !(r.start.getTime() === cursor.start && skipped++ < tie));
  }
  const more = rows.length > limit;
  rows = rows.slice(0, limit);
  if (!more || rows.length === 0) return { rows };
  const last = rows[rows.length - 1]!.start.getTime();
  const sameAsLast = rows.filter((r) => r.start.getTime() === last).length;
  return { rows, next: `${last}.${sameAsLast + (cursor !== undefined && cursor.start === last ? tie : 0)}` };
}
