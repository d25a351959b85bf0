/**
 * The state report a watcher sends to its servers (filewatcher.md §5.1): a business request
 * `org.waarp.openr66.context.task.SpooledInformTask <json>` (the original's identifier, which Java
 * and svc servers both accept), full the first time and after a failed or `needfull` answer,
 * otherwise the items changed since the last report and the keys removed.
 */
import { itemToJson, sameItem, type FileItem } from './item.js';

export const SPOOLED_INFORM_CLASS = 'org.waarp.openr66.context.task.SpooledInformTask';
export const MONITOR_INFORMATION_CLASS = 'org.waarp.common.filemonitor.FileMonitor$FileMonitorInformation';

export interface MonitorSummary {
  name: string;
  directories: readonly string[];
  stopFile: string;
  statusFile: string;
  elapse: number;
  recursive: boolean;
  globalOk: number;
  globalError: number;
  todayOk: number;
  todayError: number;
}

/** Builds successive reports for one server; remembers what that server was last told. */
export class ReportBuilder {
  private told = new Map<string, FileItem>();
  private full = true;

  /** The next report's JSON (commit() once the server accepted it, fail() otherwise). */
  build(summary: MonitorSummary, items: ReadonlyMap<string, FileItem>): { json: string; snapshot: Map<string, FileItem> } {
    const snapshot = new Map<string, FileItem>();
    const parts: string[] = [];
    for (const [k, i] of items) {
      const copy = { ...i };
      snapshot.set(k, copy);
      const before = this.told.get(k);
      if (this.full || before === undefined || !sameItem(before, i)) parts.push(`${JSON.stringify(k)}:${itemToJson(copy)}`);
    }
    let removed = 'null';
    if (!this.full) {
      const gone = [...this.told.keys()].filter((k) => !items.has(k));
      removed = JSON.stringify(gone);
    }
    const json = `{"@class":${JSON.stringify(MONITOR_INFORMATION_CLASS)},"name":${JSON.stringify(summary.name)},"fileItems":{${parts.join(',')}},`
      + `"removedFileItems":${removed},"directories":${JSON.stringify(summary.directories)},"stopFile":${JSON.stringify(summary.stopFile)},`
      + `"statusFile":${JSON.stringify(summary.statusFile)},"elapseTime":${summary.elapse},"scanSubDir":${summary.recursive},`
      + `"globalok":${summary.globalOk},"globalerror":${summary.globalError},"todayok":${summary.todayOk},"todayerror":${summary.todayError}}`;
    return { json, snapshot };
  }

  commit(snapshot: Map<string, FileItem>): void {
    this.told = snapshot;
    this.full = false;
  }

  /** The server did not answer, or answered `needfull`: the next report is full. */
  fail(): void {
    this.full = true;
  }
}
