/**
 * In-process micro-benchmark of the transfer engine: two hosts in one process (the test harness of
 * test/helpers/hosts.ts: real listeners on loopback, real SQLite databases, real files), so the
 * wall time is the CPU both sides spend together on one thread. Sequential small transfers, a few
 * concurrent ones, and one large file. Used to compare changes quickly; `npm run bench` is the judge.
 *
 * Not part of `npm run bench` (it imports src/ and test/, which dist/bench cannot): compile and run
 * it with
 *
 *   npx tsc -p tsconfig.json --outDir /tmp/micro --noEmit false --declaration false && \
 *     node /tmp/micro/bench/micro-transfer.js [small N] [conc N] [large MiB] [digest] [profile] [statements] [storedpartners]
 *
 * Each figure is printed as a JSON line; the CPU seconds are of this process (both hosts).
 * `statements` also counts the SQLite statements run (better-sqlite3 run/all/get) per transfer and
 * prints them by SQL text, with the time spent in each (a little overhead on the CPU figures).
 * `storedpartners` makes each host look its partners up in its HOSTS table, as a server does
 * (default: an in-memory partner table, which reads no row).
 */
import { writeFile } from 'node:fs/promises';
import SqliteDatabase from 'better-sqlite3';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { Digest } from '../src/model/digest.js';
import { TransferMode } from '../src/model/rule.js';
import { introduce, makeHost, patternBytes, rule, type TestHost } from '../test/helpers/hosts.js';

interface Options {
  small: number;
  concurrent: number;
  largeMiB: number;
  md5: boolean;
  profile: boolean;
  statements: boolean;
  storedPartners: boolean;
}

function parse(argv: string[]): Options {
  const o: Options = { small: 300, concurrent: 0, largeMiB: 0, md5: false, profile: false, statements: false, storedPartners: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const n = Number(argv[i + 1]);
    if (a === 'digest') o.md5 = true;
    else if (a === 'profile') o.profile = true;
    else if (a === 'statements') o.statements = true;
    else if (a === 'storedpartners') o.storedPartners = true;
    else if (a === 'small' || a === 'conc' || a === 'large') {
      if (a === 'small') o.small = n;
      else if (a === 'conc') o.concurrent = n;
      else o.largeMiB = n;
      i++;
    }
  }
  return o;
}

function cpuSeconds(start: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1e6;
}

/** Statements run per SQL text (count, nanoseconds), when counting is on (see countStatements). */
let statementCounts: Map<string, [number, bigint]> | null = null;

/** Wraps better-sqlite3's statements so each run/all/get is counted and timed by its SQL text. */
function countStatements(): void {
  statementCounts = new Map();
  const dbProto = SqliteDatabase.prototype as unknown as { prepare(sql: string): object };
  const prepare = dbProto.prepare;
  let wrapped = false;
  dbProto.prepare = function (this: unknown, sqlText: string): object {
    const stmt = prepare.call(this, sqlText);
    if (!wrapped) {
      wrapped = true;
      const proto = Object.getPrototypeOf(stmt) as Record<string, (...args: unknown[]) => unknown>;
      for (const method of ['run', 'all', 'get']) {
        const original = proto[method]!;
        proto[method] = function (this: { source: string }, ...args: unknown[]): unknown {
          const t0 = process.hrtime.bigint();
          try {
            return original.apply(this, args);
          } finally {
            const entry = statementCounts?.get(this.source) ?? [0, 0n];
            entry[0]++;
            entry[1] += process.hrtime.bigint() - t0;
            statementCounts?.set(this.source, entry);
          }
        };
      }
    }
    return stmt;
  };
}

function printStatements(label: string, count: number): void {
  if (statementCounts === null) return;
  const rows = [...statementCounts].sort((x, y) => y[1][0] - x[1][0]);
  const total = rows.reduce((n, [, [c]]) => n + c, 0);
  console.log(JSON.stringify({ label, statementsPerTransfer: +(total / count).toFixed(2) }));
  for (const [sqlText, [c, ns]] of rows) {
    console.log(`  ${(c / count).toFixed(2)} per transfer, ${(Number(ns) / 1000 / c).toFixed(0)} us each: ${sqlText.replace(/\s+/g, ' ').slice(0, 120)}`);
  }
  statementCounts.clear();
}

async function timed(label: string, count: number, bytes: number, run: () => Promise<void>): Promise<void> {
  statementCounts?.clear();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const s = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ label, count, seconds: +s.toFixed(3), perSecond: +(count / s).toFixed(1), MBps: +(bytes / s / 1e6).toFixed(1), cpuMsPerItem: +((cpuSeconds(cpu) * 1000) / count).toFixed(2), rssMB: Math.round(process.memoryUsage().rss / 1e6) }));
  printStatements(label, count);
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  if (o.statements) countStatements();
  const a = await makeHost('microa', { digest: Digest.SHA256, rankSaveBlocks: 1024, partnersFromStore: o.storedPartners });
  const b = await makeHost('microb', { digest: Digest.SHA256, rankSaveBlocks: 1024, partnersFromStore: o.storedPartners });
  const hosts: TestHost[] = [a, b];
  const session = o.profile ? new Session() : null;
  try {
    await introduce(a, b);
    await a.addRule(rule('send', TransferMode.SENDMODE));
    await b.addRule(rule('send', TransferMode.SENDMODE));
    const small = 250_000;
    const files = Math.max(o.small, o.concurrent);
    const pool = patternBytes(small + files, 7);
    for (let i = 0; i < files; i++) await writeFile(path.join(a.dirs.out, `s${i}.dat`), pool.subarray(i, i + small));
    if (o.largeMiB > 0) {
      const mib = patternBytes(1 << 20, 3);
      await writeFile(path.join(a.dirs.out, 'large.bin'), Buffer.concat(Array.from({ length: o.largeMiB }, () => mib)));
    }
    // Warm-up: connection, authentication, JIT.
    for (let i = 0; i < 5; i++) await a.engine.transfer({ partner: b.id, rule: 'send', file: `s${i}.dat`, md5: o.md5 });
    if (session) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    if (o.small > 0) {
      await timed('small-seq', o.small, o.small * small, async () => {
        for (let i = 0; i < o.small; i++) {
          const out = await a.engine.transfer({ partner: b.id, rule: 'send', file: `s${i}.dat`, md5: o.md5 });
          if (out.code.char !== 'O') throw new Error(`transfer ${i}: ${out.code.name} ${out.message}`);
        }
      });
    }
    if (o.concurrent > 0) {
      await timed('small-conc16', o.concurrent, o.concurrent * small, async () => {
        let next = 0;
        const worker = async (): Promise<void> => {
          while (next < o.concurrent) {
            const i = next++;
            const out = await a.engine.transfer({ partner: b.id, rule: 'send', file: `s${i}.dat`, md5: o.md5 });
            if (out.code.char !== 'O') throw new Error(`transfer ${i}: ${out.code.name} ${out.message}`);
          }
        };
        await Promise.all(Array.from({ length: 16 }, worker));
      });
    }
    if (o.largeMiB > 0) {
      await timed('large', 1, o.largeMiB << 20, async () => {
        const out = await a.engine.transfer({ partner: b.id, rule: 'send', file: 'large.bin', md5: o.md5 });
        if (out.code.char !== 'O') throw new Error(`large: ${out.code.name} ${out.message}`);
      });
    }
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      const file = `/tmp/micro-${Date.now()}.cpuprofile`;
      await writeFile(file, JSON.stringify(profile));
      console.log(JSON.stringify({ profile: file }));
    }
  } finally {
    session?.disconnect();
    for (const h of hosts) await h.close();
  }
}

await main();
