// What one push monitoring run costs on SQLite (docs/performance-log.md, 2026-11-27 fifteenth
// session): 8,000 finished RUNNER rows, the push's select of the last 600 by STOPTRANS through the
// store (runner.list, as src/monitor/push/exporter.ts asks it), the same select raw in better-sqlite3,
// and the 600 items written as the push body.
//
//   npm run -s build && node bench/probes/push-read.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { openStore, parseJdbcUrl } from '../../dist/store/index.js';
import { formatLocalTimestamp } from '../../dist/store/codec.js';
import { ErrorCode } from '../../dist/model/error-code.js';
import { pushBody, pushItem } from '../../dist/monitor/push/payload.js';

const ROWS = 8000;
const WINDOW = 600;
const dir = mkdtempSync(path.join(tmpdir(), 'push-read-'));
const file = path.join(dir, 'db.sqlite');
const store = await openStore(parseJdbcUrl('sqlite', `jdbc:sqlite:${file}`), { hostId: 'hosta' });
await store.initSchema({ hostId: 'hosta' });
const now = new Date();
const at = (i) => new Date(now.getTime() - ROWS + i);
await store.runner.insertMany(Array.from({ length: ROWS }, (_v, i) => ({
  specialId: BigInt(1e15 + i), requester: 'hosta', requested: 'hostb', ownerReq: 'hosta', globalStep: 4, globalLastStep: 4, step: 0, rank: 4,
  blockSize: 65536, mode: 1, updatedInfo: 6, stepStatus: ErrorCode.CompleteOk, infoStatus: ErrorCode.CompleteOk, retrieveMode: true, isMoved: false,
  start: at(i), stop: at(i), idRule: 'send', filename: `/data/out/conc/f${i}.dat`, originalName: `conc/f${i}.dat`,
  fileInfo: 'noinfo {"follow":-1234567890123456789}', transferInfo: '{"ORIGINALSIZE":250000}',
})));
const filter = { ownerReq: 'hosta', stopFrom: new Date(now.getTime() - WINDOW), stopTo: now };

async function time(name, body, times = 100) {
  await body();
  const t0 = performance.now();
  for (let i = 0; i < times; i++) await body();
  console.log(`${name}: ${((performance.now() - t0) / times).toFixed(2)} ms`);
}

let rows = [];
await time(`store select of ${WINDOW} rows (runner.list)`, async () => { rows = await store.runner.list(filter, { orderBy: 'stop', limit: 10_001 }); });
const options = { hostId: 'hosta', transformLongAsString: false, intervalIncluded: true, from: filter.stopFrom, to: now, intervalKey: 'waarpMonitor' };
await time(`push body of ${rows.length} items`, async () => { pushBody(rows.map((r) => pushItem(r, options))); });
const raw = new Database(file, { readonly: true });
raw.defaultSafeIntegers(true);
const stmt = raw.prepare('select * from RUNNER where OWNERREQ = ? and STOPTRANS >= ? and STOPTRANS <= ? order by STOPTRANS, SPECIALID limit 10001');
const args = ['hosta', formatLocalTimestamp(filter.stopFrom), formatLocalTimestamp(filter.stopTo)];
await time('the same select in better-sqlite3, rows as objects', async () => { stmt.all(...args); });
await time('the same select in better-sqlite3, rows as arrays', async () => { stmt.raw(true).all(...args); stmt.raw(false); });
raw.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
