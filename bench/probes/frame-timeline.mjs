// Steps of a run of sequential transfers, from the frame traces of its processes
// (src/net/frame-trace.ts; docs/performance.md "Fifth pass"):
//
//   rm -f /tmp/tl.*; SVC_FRAME_TRACE=/tmp/tl node dist/bench/run.js --only small-seq
//   node bench/probes/frame-timeline.mjs /tmp/tl
//
// The requester is the process whose first Request (packet type 7) it sent rather than received;
// a cycle runs from one of its Requests to the next. Prints the cycle's percentiles, its mean per
// fifth of the run (warm-up shows there), and the median of each step between two consecutive
// frames of the merged timeline over the last four fifths (A = requester, B = partner).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const prefix = process.argv[2];
if (!prefix) throw new Error('usage: node bench/probes/frame-timeline.mjs PREFIX (the SVC_FRAME_TRACE value)');
const dir = dirname(prefix);
const files = readdirSync(dir).filter((f) => f.startsWith(`${basename(prefix)}.`)).map((f) => join(dir, f));

const events = [];
for (const file of files) {
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' '));
  const firstRequest = lines.find((l) => l[2] === '7');
  if (firstRequest === undefined) continue;
  const side = firstRequest[1] === 'S' ? 'A' : 'B';
  for (const l of lines) events.push({ t: Number(l[0]), key: `${side} ${l[1]} ${l[2]}` });
}
events.sort((x, y) => x.t - y.t);
const starts = events.filter((e) => e.key === 'A S 7').map((e) => e.t);
if (starts.length < 10) throw new Error(`only ${starts.length} Requests from a requester in ${files.length} files`);

const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const quantile = (v, q) => [...v].sort((x, y) => x - y)[Math.min(v.length - 1, Math.floor(q * v.length))];
const mean = (v) => v.reduce((x, y) => x + y, 0) / v.length;
const ms = (v) => v.toFixed(3);

const cycles = starts.slice(1).map((t, i) => t - starts[i]);
console.log(`${starts.length} transfers; cycle ms: p5 ${ms(quantile(cycles, 0.05))} p50 ${ms(median(cycles))} p90 ${ms(quantile(cycles, 0.9))} p99 ${ms(quantile(cycles, 0.99))} mean ${ms(mean(cycles))}`);
const fifths = [0, 1, 2, 3, 4].map((i) => mean(cycles.slice((i * cycles.length) / 5, ((i + 1) * cycles.length) / 5)));
console.log(`mean cycle per fifth of the run: ${fifths.map(ms).join(' ')}`);

const from = starts[Math.floor(starts.length / 5)];
const steps = new Map();
for (let i = 1; i < events.length; i++) {
  if (events[i - 1].t < from) continue;
  const key = `${events[i - 1].key} -> ${events[i].key}`;
  const list = steps.get(key) ?? [];
  list.push(events[i].t - events[i - 1].t);
  steps.set(key, list);
}
const steady = starts.length - Math.floor(starts.length / 5);
console.log('\nstep (last four fifths)            count   median ms   ms per cycle');
for (const [key, v] of [...steps].sort((x, y) => mean(y[1]) * y[1].length - mean(x[1]) * x[1].length)) {
  if (v.length < steady / 4) continue;
  console.log(`${key.padEnd(34)} ${String(v.length).padStart(5)}   ${ms(median(v)).padStart(9)}   ${ms((mean(v) * v.length) / steady).padStart(12)}`);
}
