/** `/v2/filemonitors` (rest-v2.md §10.12, filewatcher.md §6): FileWatchers that reported here. */
import { z } from 'zod';
import { Role } from '../../config/index.js';
import { filterFileMonitors } from '../file-monitor-filter.js';
import type { FileMonitorReport } from '../context.js';
import { ErrorList } from './errors.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { parseQuery, qInt, qText } from './validate.js';

const query = z.object({
  name: qText.describe('only this monitor (trimmed; empty = all)'),
  status: qInt.describe('0 all, > 0 only active, < 0 only inactive'),
  countOrder: qText.describe('true = counts only'),
});

function toJson(m: FileMonitorReport): Record<string, unknown> {
  const out: Record<string, unknown> = { NAME: m.name.replace(/,/g, ' '), HOST: m.host, LAST_UPDATE: m.lastUpdate };
  const d = m.detail;
  if (d === undefined) return out;
  const dirs = d.directories;
  const shorten = (p: string): string => {
    const i = dirs.findIndex((dir) => p.startsWith(dir));
    return i < 0 ? p : `(${i + 1})${p.slice(dirs[i]!.length)}`;
  };
  return {
    ...out, GLOBALOK: d.globalOk, GLOBALERROR: d.globalError, TODAYOK: d.todayOk, TODAYERROR: d.todayError, INTERVAL: d.interval,
    STOPFILE: d.stopFile, STATUSFILE: d.statusFile, SUBDIRS: d.subDirs, DIRECTORIES: dirs.map((dir, i) => `${dir}(${i + 1}) `).join(''),
    FILES: d.files.length === 0 ? [0] : d.files.map((f) => ({ FILE: shorten(f.path), HASH: f.hash, LASTTIME: f.lastTime, USEDTIME: f.usedTime, USED: f.used, ID: f.id })),
  };
}

async function list(req: V2Request) {
  const errors = new ErrorList();
  const q = parseQuery(query, req.query, errors);
  errors.throwIfAny();
  const { services } = req.ctx;
  // Active = reported within twice the connection timeout; > 0 keeps active ones (defect V17).
  const monitors = filterFileMonitors(services.fileMonitors.list(), { name: q.name ?? '', status: q.status ?? 0 }, services.now().getTime(), services.config.limits.timeoutCon);
  const files = monitors.reduce((n, m) => n + (m.detail?.files.length ?? 0), 0);
  if (req.query.countOrder?.toLowerCase() === 'true') return json(200, { totalResults: monitors.length, totalSubResults: files });
  return json(200, { results: monitors.map(toJson), totalResults: monitors.length, totalSubResults: files });
}

export const fileMonitorOperations: V2Operation[] = [
  { method: 'GET', path: '/v2/filemonitors', fn: null, role: Role.READONLY, consumes: 'application/x-www-form-urlencoded',
    summary: 'List the FileWatchers that reported to this server', query, responses: { 200: { description: 'monitors' } }, handler: list },
];
