// Cost of creating empty files in a folder of this machine's file system (docs/performance.md,
// "Fourth pass"): 2000 files, 2000 more, then 2000 again after deleting the 4000.
//   node bench/probes/inode-create.mjs /some/new/folder
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const base = process.argv[2];
if (!base) throw new Error('usage: node bench/probes/inode-create.mjs FOLDER (made and removed)');
rmSync(base, { recursive: true, force: true });

function create(dir, n) {
  mkdirSync(dir, { recursive: true });
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) closeSync(openSync(`${dir}/f${i}_${Math.random()}`, 'wx'));
  const used = process.cpuUsage(cpu);
  return `${(performance.now() - t0).toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU`;
}

console.log('2000 files:', create(`${base}/a`, 2000));
console.log('2000 more:', create(`${base}/a`, 2000));
rmSync(`${base}/a`, { recursive: true });
console.log('2000 after deleting 4000:', create(`${base}/a`, 2000));
rmSync(base, { recursive: true, force: true });
