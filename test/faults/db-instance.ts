/**
 * A database server of the test's own (PostgreSQL or MariaDB), made in a temporary directory on a
 * free port, that the test may stop hard and start again: the shared servers of .ci/run
 * (5432, 3306) are never touched. PostgreSQL: initdb + pg_ctl (stop `-m immediate`: the server goes
 * away without a word to its clients, as a crash would); MariaDB: mariadb-install-db + mariadbd
 * (stop: SIGKILL). As root, PostgreSQL runs as the `postgres` user (initdb refuses root).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { freePort } from '../../bench/svc/homes.js';
import { waitFor } from '../helpers/wait.js';

const run = promisify(execFile);

export interface DbInstance {
  dialect: 'postgresql' | 'mariadb';
  port: number;
  /** The database as server.xml names it (`<dbdriver>`, `<dbserver>`). */
  driver: string;
  jdbc: string;
  /** The account server.xml gives (`<dbuser>`, `<dbpasswd>`). */
  user: string;
  password: string;
  /** Makes an empty schema (PostgreSQL) or database (MariaDB) `name`; returns its jdbc URL. */
  makeDatabase(name: string): Promise<string>;
  /** Stops the server at once (no shutdown checkpoint, clients' connections dropped). */
  kill(): Promise<void>;
  /** Starts it again on the same data and port; resolves once it accepts connections. */
  start(): Promise<void>;
  query<R = Record<string, unknown>>(text: string): Promise<R[]>;
  destroy(): Promise<void>;
}

const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Whether the tools to make a `dialect` server are installed. */
export function canMake(dialect: 'postgresql' | 'mariadb'): boolean {
  return dialect === 'postgresql' ? existsSync(join(PG_BIN, 'initdb')) : existsSync('/usr/sbin/mariadbd') && existsSync('/usr/bin/mariadb-install-db');
}

export async function makeDbInstance(dialect: 'postgresql' | 'mariadb'): Promise<DbInstance> {
  return dialect === 'postgresql' ? makePostgres() : makeMariadb();
}

async function makePostgres(): Promise<DbInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const pgRun = (tool: string, args: string[]): Promise<unknown> =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args]) : run(join(PG_BIN, tool), args);
  await pgRun('initdb', ['-D', data, '-A', 'trust', '-U', 'root', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async (): Promise<void> => {
    await pgRun('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  };
  await start();
  const client = (): pg.Client => new pg.Client({ host: '127.0.0.1', port, user: 'root', database: 'postgres' });
  return {
    dialect: 'postgresql', port, driver: 'postgresql',
    jdbc: `jdbc:postgresql://127.0.0.1:${port}/postgres`,
    // Trust authentication: the password is not asked (server.xml wants one all the same).
    user: 'root', password: 'unused',
    makeDatabase: async (name) => {
      const c = client();
      await c.connect();
      try {
        await c.query(`CREATE SCHEMA ${name}`);
      } finally {
        await c.end();
      }
      return `jdbc:postgresql://127.0.0.1:${port}/postgres?currentSchema=${name}`;
    },
    kill: async () => {
      await pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start,
    query: async <R>(text: string) => {
      const c = client();
      await c.connect();
      try {
        return (await c.query(text)).rows as R[];
      } finally {
        await c.end();
      }
    },
    destroy: async () => {
      await pgRun('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function makeMariadb(): Promise<DbInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mariadb-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const user = process.getuid?.() === 0 ? ['--user=root'] : [];
  await run('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, ...user, '--auth-root-authentication-method=normal', '--skip-test-db'], { timeout: 60_000 });
  let proc: ChildProcess | null = null;
  const connOpts = { host: '127.0.0.1', port, user: 'root', password: '' };
  const start = async (): Promise<void> => {
    const child = spawn('/usr/sbin/mariadbd', [
      '--no-defaults', `--datadir=${data}`, `--port=${port}`, `--socket=${join(dir, 'sock')}`, '--bind-address=127.0.0.1',
      // Log written at each commit (flushed to disk once a second): a killed server keeps every
      // commit it answered, as one with full durability does (0 would lose the last second's).
      `--pid-file=${join(dir, 'pid')}`, ...user, '--skip-log-bin', '--innodb-flush-log-at-trx-commit=2', '--innodb-buffer-pool-size=64M',
      '--max-connections=300', '--skip-name-resolve=0',
    ], { stdio: 'ignore' });
    proc = child;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`mariadbd exited ${child.exitCode}`);
      const c = await mysql.createConnection(connOpts);
      await c.end();
      return true;
    }, { what: 'the test MariaDB server', timeoutMs: 30_000, intervalMs: 100 });
    void exited;
  };
  await start();
  const kill = async (): Promise<void> => {
    const child = proc;
    proc = null;
    if (child === null || child.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  };
  const admin = await mysql.createConnection(connOpts);
  await admin.query('CREATE DATABASE test');
  await admin.query("CREATE USER svc@'%' IDENTIFIED BY 'svcpass'");
  await admin.query("GRANT ALL ON *.* TO svc@'%'");
  await admin.end();
  return {
    dialect: 'mariadb', port, driver: 'mariadb',
    jdbc: `jdbc:mariadb://127.0.0.1:${port}/test`,
    user: 'svc', password: 'svcpass',
    makeDatabase: async (name) => {
      const c = await mysql.createConnection(connOpts);
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return `jdbc:mariadb://127.0.0.1:${port}/${name}`;
    },
    kill,
    start,
    query: async <R>(text: string) => {
      const c = await mysql.createConnection({ ...connOpts, supportBigNumbers: true, bigNumberStrings: true });
      try {
        const [rows] = await c.query(text);
        return (Array.isArray(rows) ? rows : []) as R[];
      } finally {
        await c.end();
      }
    },
    destroy: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
