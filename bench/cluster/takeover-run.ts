/**
 * The full take-over run of issue 27 item 3, on its own (minutes; test/cluster/kill.test.ts is its
 * CI size):
 *
 *   npm run build && npx tsc -p tsconfig.bench.json && node dist/bench/cluster/takeover-run.js \
 *     [--members 3] [--small 2000] [--small-bytes 4096] [--large 3] [--large-mb 64] [--kills 0.25,0.6] \
 *     [--takeover-ms 5000] [--runlimit 16] [--url postgres://root@127.0.0.1:5432/test] [--keep]
 *
 * 3 members of hosta (real processes) on a fresh PostgreSQL schema, hostb on SQLite; masend of
 * 2,000 small and 3 large files; SIGKILL of member 1 at 25% of the files and of member 2 at 60%
 * (each started again at once; `--kills 0.2,0.4,0.6,0.8` kills member 1 twice among four). Prints the run and its checks; exit code 1 when a file is missing, doubled,
 * different, or a row is not DONE.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { runCli, startServer } from '../svc/hosts.js';
import { runTakeoverScenario } from './takeover-scenario.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
}

const log = (line: string): void => void process.stderr.write(`[cluster-takeover] ${line}\n`);
const baseUrl = arg('url', process.env.SVC_TEST_PG_URL ?? 'postgres://root@127.0.0.1:5432/test');
const schema = `svc_takeover_${randomBytes(4).toString('hex')}`;

async function withClient<R>(fn: (c: pg.Client) => Promise<R>, searchPath?: string): Promise<R> {
  const c = new pg.Client({ connectionString: baseUrl, ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const url = new URL(baseUrl);
await withClient((c) => c.query(`CREATE SCHEMA ${schema}`));
let ok = false;
try {
  const result = await runTakeoverScenario({
    jdbc: `jdbc:postgresql://${url.host}${url.pathname}?currentSchema=${schema}`,
    query: (text) => withClient(async (c) => (await c.query(text)).rows, schema),
    procs: { run: runCli, start: startServer },
    members: Number(arg('members', '3')),
    small: Number(arg('small', '2000')),
    smallBytes: Number(arg('small-bytes', '4096')),
    large: Number(arg('large', '3')),
    largeBytes: Number(arg('large-mb', '64')) << 20,
    kills: arg('kills', '0.25,0.6').split(',').map(Number),
    takeoverMs: Number(arg('takeover-ms', '5000')),
    runLimit: Number(arg('runlimit', '16')),
    finishTimeoutMs: 15 * 60_000,
    keep: process.argv.includes('--keep'),
    log,
  });
  ok = result.ok;
  console.log(JSON.stringify(result, null, 2));
  console.log(`${result.files} files (${(result.bytes / 2 ** 20).toFixed(1)} MiB) in ${result.seconds.toFixed(1)} s with ${result.kills.length} kills: ` +
    `${result.notDone} rows not DONE, ${result.missing.length} missing, ${result.duplicated.length} doubled, ${result.differing.length} different, ${result.unexpected.length} unexpected at hostb; ` +
    `take-over after ${result.kills.map((k) => `${k.handedBackMs} ms (${k.runningAtKill} running)`).join(', ')} -> ${ok ? 'OK' : 'FAILED'}`);
} finally {
  await withClient((c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).catch(() => undefined);
}
process.exitCode = ok ? 0 : 1;
