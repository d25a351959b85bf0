/**
 * Database time of each cluster member (issue 37 item 4): the CPU the PostgreSQL server spends in
 * the backends that serve that member's connections, and the database's own busy time.
 *
 * A member's backends are found from its sockets: the local ports of the TCP sockets the member
 * process holds (/proc/<pid>/fd -> socket inodes -> /proc/net/tcp, tcp6) are the `client_port` of
 * its connections in pg_stat_activity, whose `pid` is the backend process; that process's utime +
 * stime is read from /proc (the bench and PostgreSQL run on the same machine). Sampled while the
 * transfers run, so a backend the pool opens or closes meanwhile is counted for the time it was seen.
 * `active_time` of pg_stat_database (PostgreSQL 14+) is the time its backends spent executing
 * statements, all members together: CPU plus waits on locks, WAL flushes and I/O.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import pg from 'pg';
import { CLOCK_TICKS, cpuTicks } from '../lib/proc.js';

/** Socket inode -> local TCP port, of every TCP socket of the machine (IPv4 and IPv6). */
function localPorts(): Map<string, number> {
  const ports = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      const local = f[1];
      const inode = f[9];
      if (local === undefined || inode === undefined) continue;
      ports.set(inode, parseInt(local.slice(local.lastIndexOf(':') + 1), 16));
    }
  }
  return ports;
}

/** Inodes of the sockets process `pid` holds open. */
function socketInodes(pid: number): string[] {
  const inodes: string[] = [];
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.push(m[1] as string);
    } catch {
      /* closed meanwhile */
    }
  }
  return inodes;
}

/** PostgreSQL's PGSTAT_MIN_INTERVAL (1 s) and a margin. */
const STATS_FLUSH_MS = 1500;

interface Backend {
  member: number;
  /** CPU ticks when first seen inside the window (0 for a backend started inside it). */
  first: number;
  last: number;
}

export interface DatabaseTime {
  /** CPU milliseconds of each member's backends, in member order. */
  backendCpuMs: number[];
  /** pg_stat_database.active_time over the window, all members, milliseconds. */
  activeMs: number;
}

export class MemberDatabaseTime {
  private readonly backends = new Map<number, Backend>();
  private activeAtStart = 0;
  private started = false;

  private constructor(private readonly client: pg.Client, private readonly memberPids: number[]) {}

  /** Connects to the members' database (`url`); `memberPids[i]` is member i + 1. */
  static async open(url: string, memberPids: number[]): Promise<MemberDatabaseTime> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new MemberDatabaseTime(client, memberPids);
  }

  /** Starts the window: the backends already there count from their CPU now. */
  async start(): Promise<void> {
    this.activeAtStart = await this.activeTime();
    await this.sample();
    this.started = true;
  }

  /** Reads which backend serves which member, and each one's CPU so far. */
  async sample(): Promise<void> {
    const ports = localPorts();
    const memberOfPort = new Map<number, number>();
    this.memberPids.forEach((pid, i) => {
      for (const inode of socketInodes(pid)) {
        const port = ports.get(inode);
        if (port !== undefined) memberOfPort.set(port, i);
      }
    });
    const rows = (await this.client.query<{ pid: number; client_port: number }>(
      'SELECT pid, client_port FROM pg_stat_activity WHERE datname = current_database() AND client_port IS NOT NULL AND pid <> pg_backend_pid()',
    )).rows;
    for (const r of rows) {
      const member = memberOfPort.get(r.client_port);
      const ticks = cpuTicks(r.pid);
      if (member === undefined || ticks === undefined) continue;
      const seen = this.backends.get(r.pid);
      if (seen === undefined) this.backends.set(r.pid, { member, first: this.started ? 0 : ticks, last: ticks });
      else seen.last = ticks;
    }
  }

  /**
   * Ends the window (a last sample) and closes the connection. A backend reports its active time
   * to the statistics when it becomes idle at least PGSTAT_MIN_INTERVAL (1 s) after its last report
   * (else 10 s later): the members' scans make their backends idle every `delaycommand`, so 1.5 s
   * after the last transfer every backend has reported it.
   */
  async finish(): Promise<DatabaseTime> {
    try {
      await this.sample();
      await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
      const activeMs = (await this.activeTime()) - this.activeAtStart;
      const backendCpuMs = this.memberPids.map(() => 0);
      for (const b of this.backends.values()) backendCpuMs[b.member] = (backendCpuMs[b.member] ?? 0) + ((b.last - b.first) * 1000) / CLOCK_TICKS;
      return { backendCpuMs, activeMs };
    } finally {
      await this.client.end();
    }
  }

  private async activeTime(): Promise<number> {
    const rows = (await this.client.query<{ ms: number | null }>('SELECT active_time AS ms FROM pg_stat_database WHERE datname = current_database()')).rows;
    return Number(rows[0]?.ms ?? 0);
  }
}
