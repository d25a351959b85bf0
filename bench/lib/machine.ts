/**
 * A description of the machine stored with every result: figures from different machines (or the
 * same machine under other load) are not comparable, so the JSON says where they came from.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statfsSync } from 'node:fs';
import { cpus, hostname, loadavg, release, totalmem } from 'node:os';
import type { DiskInfo, MachineInfo } from './types.js';

/** The mount that holds `path`: the longest mount point that prefixes it (from /proc/self/mounts). */
function mountOf(path: string): { device: string; fsType: string } {
  try {
    let best = { point: '', device: 'unknown', fsType: 'unknown' };
    for (const line of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
      const [device, point, fsType] = line.split(' ');
      if (device === undefined || point === undefined || fsType === undefined) continue;
      const inside = path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`);
      if (inside && point.length >= best.point.length) best = { point, device, fsType };
    }
    return { device: best.device, fsType: best.fsType };
  } catch {
    return { device: 'unknown', fsType: 'unknown' };
  }
}

function rotational(device: string): boolean | undefined {
  const name = /^\/dev\/([a-z]+)/.exec(device)?.[1];
  if (name === undefined) return undefined;
  try {
    return readFileSync(`/sys/block/${name}/queue/rotational`, 'utf8').trim() === '1';
  } catch {
    return undefined;
  }
}

export function describeDisk(path: string): DiskInfo {
  const { device, fsType } = mountOf(path);
  const fs = statfsSync(path);
  const disk: DiskInfo = { path, device, fsType, totalBytes: fs.blocks * fs.bsize, freeBytes: fs.bavail * fs.bsize };
  const rot = rotational(device);
  if (rot !== undefined) disk.rotational = rot;
  return disk;
}

/** True when /proc/cpuinfo lists the SHA extensions (`sha_ni`); false when it does not or is unreadable. */
function hasShaNi(): boolean {
  try {
    return /^flags\s*:.*\bsha_ni\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

/** SHA-256 throughput of one core in MB/s: 16 MiB hashed in 64 KiB updates, the best of three. */
export function measureSha256(): number {
  const block = Buffer.alloc(64 * 1024, 0x5a);
  const blocks = 256;
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const started = process.hrtime.bigint();
    const hash = createHash('sha256');
    for (let i = 0; i < blocks; i++) hash.update(block);
    hash.digest();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e9);
  }
  return Math.round((block.length * blocks) / best / 1e6);
}

export function describeMachine(workDir: string): MachineInfo {
  const cpuList = cpus();
  return {
    hostname: hostname(),
    cores: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    kernel: release(),
    disk: describeDisk(workDir),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    sha256: { mbPerSecond: measureSha256(), shaNi: hasShaNi() },
  };
}
