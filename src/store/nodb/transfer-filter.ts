import { isFinished } from '../../model/transfer-state.js';
import { UpdatedInfo, type TransferRecord } from '../../model/transfer.js';
import type { TransferFilter, TransferListOptions, TransferTally } from '../repository-types.js';

// The SQL conditions of repositories/runner.ts evaluated in memory (no-database mode).

/** True when `r` satisfies every condition of `f`. */
export function matchesTransfer(r: TransferRecord, f: TransferFilter): boolean {
  const t = (d: Date) => d.getTime();
  if (f.ownerReq !== undefined && r.ownerReq !== f.ownerReq) return false;
  if (f.specialIdFrom !== undefined && r.specialId < f.specialIdFrom) return false;
  if (f.specialIdTo !== undefined && r.specialId > f.specialIdTo) return false;
  if (f.startFrom !== undefined && t(r.start) < t(f.startFrom)) return false;
  if (f.startTo !== undefined && t(r.start) > t(f.startTo)) return false;
  if (f.stopFrom !== undefined && t(r.stop) < t(f.stopFrom)) return false;
  if (f.stopTo !== undefined && t(r.stop) > t(f.stopTo)) return false;
  if (f.idRule !== undefined && r.idRule !== f.idRule) return false;
  if (f.requester !== undefined && r.requester !== f.requester) return false;
  if (f.requested !== undefined && r.requested !== f.requested) return false;
  if (f.partner !== undefined && r.requester !== f.partner && r.requested !== f.partner) return false;
  if (f.updatedInfo !== undefined && !f.updatedInfo.includes(r.updatedInfo)) return false;
  if (f.globalStep !== undefined && !f.globalStep.includes(r.globalStep)) return false;
  if (f.notRunning && r.updatedInfo === UpdatedInfo.RUNNING) return false;
  if (f.followId !== undefined) {
    // FILEINFO for new rows (the original's place), TRANSFERINFO for rows written before.
    const id = f.followId.toString();
    if (![r.fileInfo, r.transferInfo].some((v) => v.includes(`"follow":${id},`) || v.includes(`"follow":${id}}`))) return false;
  }
  const s = f.status;
  if (s && (s.pending || s.transfer || s.error || s.done)) {
    const u = r.updatedInfo;
    const any = (s.pending && u === UpdatedInfo.TOSUBMIT) || (s.transfer && u === UpdatedInfo.RUNNING)
      || (s.error && (u === UpdatedInfo.INERROR || u === UpdatedInfo.INTERRUPTED || r.globalStep === 5))
      // "done" is the state machine's finished (the SQL store writes the same test as a condition).
      || (s.done && isFinished(r));
    if (!any) return false;
  }
  return true;
}

/** Sorts and pages like the SQL list (ties broken by id). */
export function orderTransfers(list: TransferRecord[], o: TransferListOptions = {}): TransferRecord[] {
  const key = o.orderBy ?? 'specialId';
  const sign = o.descending ? -1 : 1;
  const cmpId = (a: TransferRecord, b: TransferRecord) => (a.specialId < b.specialId ? -1 : a.specialId > b.specialId ? 1 : 0);
  const sorted = [...list].sort((a, b) => {
    const primary = key === 'specialId' ? 0 : key === 'start' ? a.start.getTime() - b.start.getTime() : a.stop.getTime() - b.stop.getTime();
    return sign * (primary !== 0 ? Math.sign(primary) : cmpId(a, b));
  });
  const from = o.offset ?? 0;
  return sorted.slice(from, o.limit === undefined ? undefined : from + o.limit);
}

/** The groups of RunnerRepository.tally computed over records already filtered. */
export function tallyTransfers(records: readonly TransferRecord[], host: string): TransferTally[] {
  const groups = new Map<string, TransferTally>();
  for (const r of records) {
    const inbound = r.requested === host;
    const key = `${inbound}|${r.updatedInfo}|${r.globalStep}|${r.stepStatus.char}|${r.infoStatus.char}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { inbound, updatedInfo: r.updatedInfo, globalStep: r.globalStep, stepStatus: r.stepStatus.char, infoStatus: r.infoStatus.char, count: 1, lastStart: r.start });
    else {
      g.count++;
      if (r.start.getTime() > g.lastStart.getTime()) g.lastStart = r.start;
    }
  }
  return [...groups.values()];
}
