/**
 * One page of transfers, newest start first, that stays fast on a large RUNNER table: keyset
 * paging on STARTTRANS (the cursor is the last start shown and how many rows with that same start
 * were shown), and a filter split into parts that each walk one index in start order, merged here:
 *
 * - a rule or a partner filter uses the svc-only indexes (IDRULE | REQUESTER | REQUESTED, OWNERREQ,
 *   STARTTRANS) of store/ddl.ts; a partner is two parts (requester, requested); the status boxes are
 *   then checked on the rows the index gives;
 * - otherwise one part per UPDATEDINFO value, or per condition of the status boxes (error = INERROR,
 *   INTERRUPTED or GLOBALSTEP ERRORTASK: three parts), on the original's (UPDATEDINFO | GLOBALSTEP,
 *   OWNERREQ, STARTTRANS) indexes;
 * - with several owners (`seeallid`), each owner is its own part, for the same reason.
 *
 * No COUNT and no OFFSET: the last page of a million rows costs what the first one does. What is
 * not indexed (a transfer id range, or a rule/partner combined with a status its rows rarely have)
 * is checked on rows read in start order until the page is full.
 */
import { TaskStep, UpdatedInfo, type TransferRecord } from '../model/transfer.js';
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

const keyOf = (r: TransferRecord): string => `${r.specialId}\u0000${r.requester}\u0000${r.requested}\u0000${r.ownerReq}`;
const cmp = (x: string | bigint, y: string | bigint): number => (x < y ? -1 : x > y ? 1 : 0);

/** Newest start first, then the store's tie order (SPECIALID descending), then the rest of the key. */
const newestFirst = (x: TransferRecord, y: TransferRecord): number =>
  y.start.getTime() - x.start.getTime() || cmp(y.specialId, x.specialId) || cmp(x.requester, y.requester) || cmp(x.requested, y.requested) || cmp(x.ownerReq, y.ownerReq);

/** The status boxes as separate conditions, each one an indexed equality (see the file comment). */
function statusParts(s: NonNullable<TransferFilter['status']>): TransferFilter[] {
  const parts: TransferFilter[] = [];
  if (s.pending) parts.push({ updatedInfo: [UpdatedInfo.TOSUBMIT] });
  if (s.transfer) parts.push({ updatedInfo: [UpdatedInfo.RUNNING] });
  if (s.error) parts.push({ updatedInfo: [UpdatedInfo.INERROR] }, { updatedInfo: [UpdatedInfo.INTERRUPTED] }, { globalStep: [TaskStep.ERRORTASK] });
  if (s.done) parts.push({ updatedInfo: [UpdatedInfo.DONE] }, { globalStep: [TaskStep.ALLDONETASK] });
  return parts;
}

/** The filter as parts whose union it is, each one answered by one index in start order. */
export function splitFilter(filter: TransferFilter, owners?: readonly string[]): TransferFilter[] {
  let parts: TransferFilter[] = owners === undefined ? [filter] : owners.map((ownerReq) => ({ ...filter, ownerReq }));
  if (filter.partner !== undefined) {
    parts = parts.flatMap(({ partner, ...f }) => [{ ...f, requester: partner }, { ...f, requested: partner }]);
  }
  const indexed = filter.idRule !== undefined || filter.partner !== undefined || filter.requester !== undefined || filter.requested !== undefined;
  if (indexed) return parts;
  return parts.flatMap((f) => {
    const s = f.status;
    if (s !== undefined && (s.pending || s.transfer || s.error || s.done)) {
      const { status: _status, ...rest } = f;
      return statusParts(s).map((p) => ({ ...rest, ...p }));
    }
    if (f.globalStep !== undefined) return f.globalStep.map((g) => ({ ...f, globalStep: [g] }));
    return (f.updatedInfo ?? ALL_STATUSES).map((u) => ({ ...f, updatedInfo: [u] }));
  });
}

export interface TransferPageOptions {
  /** Owners whose rows are listed (`seeallid`); default: the filter's own `ownerReq`. */
  owners?: readonly string[];
}

export async function transferPage(runner: RunnerRepository, filter: TransferFilter, limit: number, cursorText?: string, options: TransferPageOptions = {}): Promise<TransferPage> {
  const cursor = parseCursor(cursorText);
  const f: TransferFilter = { ...filter };
  if (cursor !== undefined) {
    const before = new Date(cursor.start);
    if (f.startTo === undefined || f.startTo.getTime() > before.getTime()) f.startTo = before;
  }
  const tie = cursor?.tie ?? 0;
  // Rows sharing the cursor's start were partly shown: fetch enough to skip them.
  const want = limit + tie + 1;
  const parts = await Promise.all(splitFilter(f, options.owners).map((p) => runner.list(p, { orderBy: 'start', descending: true, limit: want })));
  // A row can meet two parts (INERROR and ERRORTASK, or its own partner on both sides): once.
  const seen = new Set<string>();
  let rows = parts.flat().filter((r) => {
    const k = keyOf(r);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  }).sort(newestFirst);
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
