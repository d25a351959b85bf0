// The SQL each dialect adapter writes for the original's schema (database.md §2, §3, §8): the exact
// statements the store ran before the adapters (decision 0050), which the original's tools and
// existing databases depend on. test/store/schema.test.ts runs them on the three databases.
import { describe, expect, it } from 'vitest';
import { createIndexSql, createTableSql, INDEXES, TABLES, type TableSpec } from '../../src/store/ddl.js';
import { adapterOf } from '../../src/store/dialects/index.js';
import type { DialectName } from '../../src/store/jdbc-url.js';

const table = (name: string): TableSpec => TABLES.find((t) => t.name === name)!;
const hostsSql = (binary: string) => 'CREATE TABLE IF NOT EXISTS HOSTS (ADDRESS VARCHAR(255) NOT NULL, PORT INTEGER NOT NULL, ISSSL BOOLEAN NOT NULL, '
  + `HOSTKEY ${binary} NOT NULL, ADMINROLE BOOLEAN NOT NULL, ISCLIENT BOOLEAN NOT NULL, ISACTIVE BOOLEAN NOT NULL, ISPROXIFIED BOOLEAN NOT NULL, `
  + 'UPDATEDINFO INTEGER NOT NULL, HOSTID VARCHAR(255) PRIMARY KEY)';
interface Expected {
  hosts: string; rank: string; text: string; start: string; followId: string; addColumn: string[];
  /** The 3.0.4 retyping of RANK; none on SQLite (dynamically typed). */
  retypeRank: string | undefined;
  dropIndex: string;
}
const MYSQL: Expected = {
  hosts: hostsSql('VARBINARY(510)'),
  rank: '`RANK` INTEGER NOT NULL', text: 'FILENAME TEXT NOT NULL', start: 'STARTTRANS TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)',
  followId: 'CREATE INDEX FOLLOWID_IDX ON RUNNER (TRANSFERINFO(255), OWNERREQ)',
  addColumn: ['ALTER TABLE HOSTS ADD ISACTIVE BOOLEAN NOT NULL', 'UPDATE HOSTS SET ISACTIVE = 1'],
  retypeRank: 'ALTER TABLE RUNNER MODIFY `RANK` INTEGER NOT NULL',
  dropIndex: 'DROP INDEX IDX_RUNNER ON RUNNER',
};
const EXPECTED: Record<DialectName, Expected> = {
  sqlite: {
    hosts: hostsSql('BLOB'),
    rank: 'RANK INTEGER NOT NULL', text: 'FILENAME VARCHAR(8096) NOT NULL',
    start: "STARTTRANS TIMESTAMP(3) NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f', 'now', 'localtime'))",
    followId: 'CREATE INDEX IF NOT EXISTS FOLLOWID_IDX ON RUNNER (TRANSFERINFO, OWNERREQ)',
    addColumn: ['ALTER TABLE HOSTS ADD ISACTIVE BOOLEAN DEFAULT 1 NOT NULL'],
    retypeRank: undefined,
    dropIndex: 'DROP INDEX IF EXISTS IDX_RUNNER',
  },
  postgresql: {
    hosts: hostsSql('BYTEA'),
    rank: 'RANK INTEGER NOT NULL', text: 'FILENAME VARCHAR(8096) NOT NULL', start: 'STARTTRANS TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)',
    followId: 'CREATE INDEX IF NOT EXISTS FOLLOWID_IDX ON RUNNER (TRANSFERINFO, OWNERREQ)',
    addColumn: ['ALTER TABLE HOSTS ADD ISACTIVE BOOLEAN DEFAULT TRUE NOT NULL'],
    retypeRank: 'ALTER TABLE RUNNER ALTER COLUMN RANK TYPE INTEGER',
    dropIndex: 'DROP INDEX IF EXISTS IDX_RUNNER',
  },
  mysql: MYSQL,
  mariadb: MYSQL,
};

describe.each(Object.keys(EXPECTED) as DialectName[])('the %s adapter', (name) => {
  const a = adapterOf(name);
  const want = EXPECTED[name];

  it('creates the original tables and indexes with its types, quoting and defaults', () => {
    expect(createTableSql(a, table('HOSTS'))).toBe(want.hosts);
    const runner = createTableSql(a, table('RUNNER'));
    for (const part of [want.rank, want.text, want.start]) expect(runner).toContain(`${part},`);
    expect(runner).toMatch(/^CREATE TABLE IF NOT EXISTS RUNNER \(SPECIALID BIGINT NOT NULL, .*, CONSTRAINT runner_pk PRIMARY KEY \(REQUESTED, REQUESTER, OWNERREQ, SPECIALID\)\)$/);
    expect(createIndexSql(a, INDEXES.find((i) => i.name === 'FOLLOWID_IDX')!)).toBe(want.followId);
  });

  it('writes the upgrade steps of database.md §8.3', () => {
    expect(a.addColumnSql('HOSTS', 'ISACTIVE', a.types.BOOL, a.booleanLiteral(true))).toEqual(want.addColumn);
    expect(a.retypeSql(table('RUNNER')).find((s) => s.includes('RANK'))).toBe(want.retypeRank);
    expect(a.dropIndexSql('IDX_RUNNER', 'RUNNER')).toBe(want.dropIndex);
  });
});
