// CPU of RUNNER-like row changes committed one by one or in groups (decision 0018): a table with
// the RUNNER indexes, WAL, synchronous=NORMAL; per "transfer" 1 insert + 3 updates.
//   node bench/probes/sqlite-group-commit.mjs [FOLDER]   (default: the current folder)
import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';

const file = `${process.argv[2] ?? process.cwd()}/group-commit-probe.db`;
const removeDb = () => ['', '-wal', '-shm'].forEach((s) => rmSync(file + s, { force: true }));
removeDb();
const db = new Database(file);
db.pragma('journal_mode=WAL');
db.pragma('synchronous=NORMAL');
db.exec(`create table runner (specialid bigint, requester varchar(255), requested varchar(255), ownerreq varchar(255),
  globalstep int, globallaststep int, step int, stepstatus char(3), infostatus char(3), updatedinfo int,
  starttrans timestamp, stoptrans timestamp, rank int, filename varchar(8096), originalname varchar(8096),
  fileinfo varchar(8096), transferinfo varchar(8096), idrule varchar(255), primary key (specialid, requester, requested, ownerreq));
  create index i1 on runner (stoptrans, ownerreq); create index i2 on runner (updatedinfo, ownerreq, starttrans);
  create index i3 on runner (globalstep, ownerreq, starttrans); create index i4 on runner (transferinfo, ownerreq);`);
const insert = db.prepare('insert into runner values (?, ?, ?, ?, 1, 1, 0, ?, ?, 1, ?, ?, 0, ?, ?, ?, ?, ?)');
const update = db.prepare('update runner set stoptrans = ?, globalstep = ?, updatedinfo = ?, stepstatus = ? where specialid = ? and requester = ? and requested = ? and ownerreq = ?');
const now = () => new Date().toISOString();
let id = 1_000_000n;

function transfer() {
  const i = id++;
  insert.run(i, 'hosta', 'hostb', 'hostb', '  ', '  ', now(), now(), `/x/in/file_${i}.dat`, `file_${i}.dat`, 'info', '{}', 'send');
  for (const step of [2, 3, 4]) update.run(now(), step, step, '  ', i, 'hosta', 'hostb', 'hostb');
}

for (const group of [1, 4, 8, 1, 4, 8]) {
  const n = 2000;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let k = 0; k < n; k += group) {
    if (group > 1) db.exec('begin immediate');
    for (let j = 0; j < group; j++) transfer();
    if (group > 1) db.exec('commit');
  }
  const used = process.cpuUsage(cpu);
  console.log(`${group} transfer(s) per commit: ${((used.user + used.system) / n).toFixed(0)} µs CPU, ${(((performance.now() - t0) * 1000) / n).toFixed(0)} µs wall per transfer (4 changes)`);
}
db.close();
removeDb();
