/**
 * `--profile`: the svc processes run with Node's --cpu-prof, and each .cpuprofile they leave is
 * summarised here as the functions with the most self time, so a profile-driven pass can start from
 * the bench's own output (open the files in Chrome DevTools for the full picture).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
  /** Share of the busy time (idle excluded). */
  share: number;
}

export interface ProfileSummary {
  file: string;
  pid: number;
  busyMs: number;
  top: HotFunction[];
}

/** Node flags (not allowed in NODE_OPTIONS) for processes that should leave a CPU profile in `dir`. */
export function profileNodeFlags(dir: string): string[] {
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

function where(url: string, line: number, root: string): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  return `${path.startsWith(root) ? relative(root, path) : path}:${line + 1}`;
}

export function summarizeProfile(file: string, root: string, topN = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const samples = profile.samples?.length ?? 0;
  const msPerSample = samples > 0 ? (profile.endTime - profile.startTime) / 1000 / samples : 0;
  const self = new Map<string, HotFunction>();
  let busyMs = 0;
  for (const n of profile.nodes) {
    const ms = (n.hitCount ?? 0) * msPerSample;
    if (ms === 0 || n.callFrame.functionName === '(idle)') continue;
    busyMs += ms;
    const name = n.callFrame.functionName || '(anonymous)';
    const at = where(n.callFrame.url, n.callFrame.lineNumber, root);
    const key = `${name} ${at}`;
    const f = self.get(key) ?? { name, where: at, selfMs: 0, share: 0 };
    f.selfMs += ms;
    self.set(key, f);
  }
  const top = [...self.values()].sort((x, y) => y.selfMs - x.selfMs).slice(0, topN);
  for (const f of top) f.share = busyMs > 0 ? f.selfMs / busyMs : 0;
  // Node names the files CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile.
  const pid = Number(/CPU\.\d+\.\d+\.(\d+)\./.exec(file)?.[1] ?? 0);
  return { file, pid, busyMs, top };
}

export function summarizeProfiles(dir: string, root: string, labels: Map<number, string>): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
  const parts: string[] = [];
  for (const f of files) {
    const s = summarizeProfile(join(dir, f), root);
    const label = labels.get(s.pid) ?? `pid ${s.pid}`;
    parts.push(`${label} (${f}): ${(s.busyMs / 1000).toFixed(2)} s busy\n` +
      s.top.map((h) => `  ${(h.share * 100).toFixed(1).padStart(5)}%  ${h.selfMs.toFixed(0).padStart(7)} ms  ${h.name}  ${h.where}`).join('\n'));
  }
  return parts.join('\n\n');
}
