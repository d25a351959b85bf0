// Test databases for the three dialects (DEVELOPERS.md "Database servers for tests").
//
//   const dbs = testDialects();                          // once per file, at top level
//   describe.each(dbs)('$name', (dbc) => {
//     let db: TestDatabase;
//     beforeAll(async () => { db = await dbc.create(); }); // own random schema/database
//     afterAll(async () => { await db?.drop(); });
//     it('...', async (ctx) => { if (dbc.skip(ctx)) return; ... openStore(db.settings) ... });
//   });
//
// SQLite always runs (temporary file). PostgreSQL (SVC_TEST_PG_URL) and MariaDB/MySQL
// (SVC_TEST_MYSQL_URL) run when reachable; otherwise their tests are skipped with a printed notice,
// unless SVC_TEST_REQUIRE_DBS=1, when create() fails loudly instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { parseJdbcUrl, type DbConnectionSettings, type DialectName } from '../../src/store/index.js';

export const DEFAULT_PG_URL = 'postgres://root@127.0.0.1:5432/test';
export const DEFAULT_MYSQL_URL = 'mysql://root@127.0.0.1:3306/test';

/** One database made for one test file; drop() removes it. */
export interface TestDatabase {
  dialect: DialectName;
  /** Settings pointing at the private schema/database (give them to openStore). */
  settings: DbConnectionSettings;
  /** Name of the private schema (PostgreSQL), database (MariaDB) or file path (SQLite). */
  name: string;
  /** Runs SQL directly in the private schema/database (for fixtures and row assertions). */
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** A dialect under test. */
export interface TestDialect {
  name: DialectName;
  /** Creates a fresh private database; resolves undefined when the server is unreachable (and not required). */
  create(): Promise<TestDatabase | undefined>;
  /** In a test: true (and the test is marked skipped) when the dialect's server was unreachable. */
  skip(ctx: { skip: (note?: string) => void }): boolean;
}

const required = (): boolean => process.env.SVC_TEST_REQUIRE_DBS === '1';
const randomName = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;

/** SQLite, PostgreSQL and MariaDB/MySQL, in that order. */
export function testDialects(): TestDialect[] {
  return [sqliteDialect(), serverDialect('postgresql'), serverDialect('mariadb')];
}

function sqliteDialect(): TestDialect {
  return {
    name: 'sqlite',
    skip: () => false,
    create: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
      const file = join(dir, 'test.sqlite');
      const settings = parseJdbcUrl('sqlite', `jdbc:sqlite:${file}`);
      const BetterSqlite = (await import('better-sqlite3')).default;
      return {
        dialect: 'sqlite', settings, name: file,
        query: async <R>(text: string, params: unknown[] = []) => {
          const db = new BetterSqlite(file, { timeout: 10_000 });
          db.defaultSafeIntegers(true);
          try {
            const stmt = db.prepare(text);
            return (stmt.reader ? stmt.all(...params) : (stmt.run(...params), [])) as R[];
          } finally {
            db.close();
          }
        },
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  };
}

function serverDialect(name: 'postgresql' | 'mariadb'): TestDialect {
  let unreachable: string | undefined;
  const envVar = name === 'postgresql' ? 'SVC_TEST_PG_URL' : 'SVC_TEST_MYSQL_URL';
  const url = process.env[envVar] || (name === 'postgresql' ? DEFAULT_PG_URL : DEFAULT_MYSQL_URL);
  const reportUnreachable = (err: unknown): undefined => {
    const why = err instanceof Error ? err.message : String(err);
    if (required()) throw new Error(`${name} test server ${url} unreachable (SVC_TEST_REQUIRE_DBS=1): ${why}`);
    unreachable = why;
    console.warn(`NOTICE: ${name} tests skipped: ${url} unreachable (${why}); set ${envVar} or start the server`);
    return undefined;
  };
  return {
    name,
    skip: (ctx) => {
      if (unreachable === undefined) return false;
      ctx.skip(`${name} unreachable`);
      return true;
    },
    create: async () => {
      const base = parseJdbcUrl('', url);
      if (base.dialect === 'sqlite') throw new Error(`${envVar} must name a server`);
      const db = randomName('svc_test');
      try {
        if (name === 'postgresql') {
          const admin = new pg.Client({ host: base.host, port: base.port, user: base.user, password: base.password, database: base.database, connectionTimeoutMillis: 5000 });
          await admin.connect();
          await admin.query(`CREATE SCHEMA ${db}`);
          await admin.end();
          const settings = { ...base, dialect: 'postgresql' as const, schema: db };
          return {
            dialect: name, settings, name: db,
            query: async <R>(text: string, params: unknown[] = []) => {
              const c = new pg.Client({ host: base.host, port: base.port, user: base.user, password: base.password, database: base.database, options: `-c search_path=${db}` });
              await c.connect();
              try {
                return (await c.query(text, params)).rows as R[];
              } finally {
                await c.end();
              }
            },
            drop: async () => {
              const c = new pg.Client({ host: base.host, port: base.port, user: base.user, password: base.password, database: base.database });
              await c.connect();
              await c.query(`DROP SCHEMA IF EXISTS ${db} CASCADE`);
              await c.end();
            },
          };
        }
        const connOpts = { host: base.host, port: base.port, user: base.user, password: base.password ?? '', connectTimeout: 5000 };
        const admin = await mysql.createConnection(connOpts);
        await admin.query(`CREATE DATABASE ${db}`);
        await admin.end();
        const settings = { ...base, dialect: 'mariadb' as const, database: db };
        return {
          dialect: name, settings, name: db,
          query: async <R>(text: string, params: unknown[] = []) => {
            const c = await mysql.createConnection({ ...connOpts, database: db, supportBigNumbers: true, bigNumberStrings: true });
            try {
              const [rows] = await c.query(text, params);
              return (Array.isArray(rows) ? rows : []) as R[];
            } finally {
              await c.end();
            }
          },
          drop: async () => {
            const c = await mysql.createConnection(connOpts);
            await c.query(`DROP DATABASE IF EXISTS ${db}`);
            await c.end();
          },
        };
      } catch (err) {
        return reportUnreachable(err);
      }
    },
  };
}
