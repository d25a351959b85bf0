/**
 * FileWatcher reports kept by a server (filewatcher.md §5.2): in memory, the latest state per
 * watcher name, merged from full and delta reports. Read by `GET /v2/filemonitors` and the
 * monitoring pages' spooled views (web-ui.md §1.6) through the read API below.
 *
 * Full or delta: `removedFileItems` null (or absent) means a full report; an array, even empty, a
 * delta (the original replaced everything on an empty array, losing the unchanged files; a svc
 * watcher sends null for full, as the original's).
 */
import type { FileMonitorFile, FileMonitorReport } from '../http/context.js';
import { itemsFromJson, parseItemsJson, type FileItem } from '../watch/item.js';

// The listing's filters are REST's (src/http must not import src/server: decision on the layering).
export { filterFileMonitors, freshness, isActive } from '../http/file-monitor-filter.js';

/** The answers of the original: `Validated`, or `needfull` when this server lost the watcher's state. */
export type InformAnswer = 'Validated' | 'needfull';

interface Entry {
  name: string;
  host: string;
  lastUpdate: number;
  items: Map<string, FileItem>;
  directories: string[];
  stopFile: string;
  statusFile: string;
  interval: number;
  subDirs: boolean;
  globalOk: number;
  globalError: number;
  todayOk: number;
  todayError: number;
}

export class FileMonitorError extends Error {}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Hex of a Base64 MD5 (the listing's HASH), or null. */
function hexHash(b64: string | null): string | null {
  if (b64 === null) return null;
  const hex = Buffer.from(b64, 'base64').toString('hex');
  return hex.length > 0 ? hex : null;
}

function fileOf(i: FileItem): FileMonitorFile {
  return {
    path: i.file, hash: hexHash(i.hash),
    lastTime: i.lastTime !== null && i.lastTime > 0 ? i.lastTime : null,
    usedTime: i.timeUsed !== null && i.timeUsed > 0 ? i.timeUsed : null,
    used: i.used, id: i.specialId === null ? '' : String(i.specialId),
  };
}

export class FileMonitorRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * One report (the JSON after the class name) from `host`; throws FileMonitorError when it is not
   * a FileWatcher's status. Returns the answer for the watcher.
   */
  update(host: string, json: string): InformAnswer {
    let info: Record<string, unknown>;
    let items: Map<string, FileItem>;
    try {
      info = parseItemsJson(json) as Record<string, unknown>;
      if (typeof info !== 'object' || info === null || Array.isArray(info)) throw new Error('expected a JSON object');
      items = info.fileItems === null || info.fileItems === undefined ? new Map() : itemsFromJson(info.fileItems, 'fileItems');
    } catch (err) {
      throw new FileMonitorError(`SpooledInformTask expects the FileWatcher status JSON: ${(err as Error).message}`);
    }
    if (typeof info.name !== 'string' || info.name === '') throw new FileMonitorError('SpooledInformTask: the status has no name');
    const removed = Array.isArray(info.removedFileItems) ? info.removedFileItems.filter((k): k is string => typeof k === 'string') : null;
    const previous = this.entries.get(info.name);
    let answer: InformAnswer = 'Validated';
    let merged = items;
    if (removed !== null) {
      if (previous === undefined) answer = 'needfull';
      else {
        merged = previous.items;
        for (const k of removed) merged.delete(k);
        for (const [k, i] of items) merged.set(k, i);
      }
    }
    this.entries.set(info.name, {
      name: info.name, host, lastUpdate: this.now(), items: merged,
      directories: Array.isArray(info.directories) ? info.directories.map(text) : [],
      stopFile: text(info.stopFile), statusFile: text(info.statusFile), interval: num(info.elapseTime), subDirs: info.scanSubDir === true,
      globalOk: num(info.globalok), globalError: num(info.globalerror), todayOk: num(info.todayok), todayError: num(info.todayerror),
    });
    return answer;
  }

  /** Latest report of every watcher, in name order (the read API of REST v2 and the web pages). */
  list(): FileMonitorReport[] {
    return [...this.entries.values()].sort((a, b) => a.name.localeCompare(b.name)).map((e) => ({
      name: e.name, host: e.host, lastUpdate: e.lastUpdate,
      detail: {
        globalOk: e.globalOk, globalError: e.globalError, todayOk: e.todayOk, todayError: e.todayError, interval: e.interval,
        stopFile: e.stopFile, statusFile: e.statusFile, subDirs: e.subDirs, directories: e.directories, files: [...e.items.values()].map(fileOf),
      },
    }));
  }
}
