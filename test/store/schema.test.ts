import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, parseJdbcUrl, StoreError, type DialectName, type Store } from '../../src/store/index.js';
import { DEFAULT_MYSQL_URL, DEFAULT_PG_URL, testDialects, type TestDatabase } from '../helpers/databases.js';

const OWNER = 'svc1';

async function tableNames(db: TestDatabase): Promise<string[]> {
  const q = {
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
    postgresql: 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() UNION ALL SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema() ORDER BY 1',
    mariadb: 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = database() ORDER BY 1',
    mysql: 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = database() ORDER BY 1',
  }[db.dialect];
  return (await db.query<{ name: string }>(q)).map((r) => r.name.toLowerCase()).sort();
}

async function indexNames(db: TestDatabase): Promise<string[]> {
  const q = {
    sqlite: "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'",
    postgresql: "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname NOT LIKE '%pkey' AND indexname <> 'runner_pk'",
    mariadb: "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = database() AND index_name <> 'PRIMARY'",
    mysql: "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = database() AND index_name <> 'PRIMARY'",
  }[db.dialect];
  return (await db.query<{ name: string }>(q)).map((r) => r.name.toLowerCase()).sort();
}

/** A 2.4.x-era schema: no HOSTCONFIG, RUNNER without TRANSFERINFO, HOSTS without ISACTIVE/ISPROXIFIED, old sizes, IDX_RUNNER. */
function oldSchema(dialect: DialectName): string[] {
  const bin = dialect === 'postgresql' ? 'BYTEA' : dialect === 'sqlite' ? 'BLOB' : 'VARBINARY(255)';
  const text = dialect === 'postgresql' || dialect === 'sqlite' ? 'VARCHAR(16000)' : 'TEXT';
  const rank = dialect === 'mariadb' || dialect === 'mysql' ? '`RANK`' : 'RANK';
  const t = dialect === 'postgresql' ? 'TRUE' : '1';
  const f = dialect === 'postgresql' ? 'FALSE' : '0';
  const statements = [
    'CREATE TABLE MULTIPLEMONITOR (COUNTCONFIG INTEGER NOT NULL, COUNTHOST INTEGER NOT NULL, COUNTRULE INTEGER NOT NULL, HOSTID VARCHAR(250) PRIMARY KEY)',
    'CREATE TABLE CONFIGURATION (READGLOBALLIMIT BIGINT NOT NULL, WRITEGLOBALLIMIT BIGINT NOT NULL, READSESSIONLIMIT BIGINT NOT NULL, WRITESESSIONLIMIT BIGINT NOT NULL, DELAYLIMIT BIGINT NOT NULL, UPDATEDINFO INTEGER NOT NULL, HOSTID VARCHAR(250) PRIMARY KEY)',
    `CREATE TABLE HOSTS (ADDRESS VARCHAR(250) NOT NULL, PORT INTEGER NOT NULL, ISSSL BOOLEAN NOT NULL, HOSTKEY ${bin} NOT NULL, ADMINROLE BOOLEAN NOT NULL, ISCLIENT BOOLEAN NOT NULL, UPDATEDINFO INTEGER NOT NULL, HOSTID VARCHAR(250) PRIMARY KEY)`,
    `CREATE TABLE RULES (HOSTIDS ${text}, MODETRANS INTEGER, RECVPATH VARCHAR(250), SENDPATH VARCHAR(250), ARCHIVEPATH VARCHAR(250), WORKPATH VARCHAR(250), RPRETASKS ${text}, RPOSTTASKS ${text}, RERRORTASKS ${text}, SPRETASKS ${text}, SPOSTTASKS ${text}, SERRORTASKS ${text}, UPDATEDINFO INTEGER, IDRULE VARCHAR(250) PRIMARY KEY)`,
    `CREATE TABLE RUNNER (SPECIALID BIGINT NOT NULL, GLOBALSTEP INTEGER NOT NULL, GLOBALLASTSTEP INTEGER NOT NULL, STEP INTEGER NOT NULL, ${rank} INTEGER NOT NULL, BLOCKSZ INTEGER NOT NULL, MODETRANS INTEGER NOT NULL, UPDATEDINFO INTEGER NOT NULL, STEPSTATUS CHAR(3) NOT NULL, INFOSTATUS CHAR(3) NOT NULL, RETRIEVEMODE BOOLEAN NOT NULL, ISMOVED BOOLEAN NOT NULL, STARTTRANS TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, STOPTRANS TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, OWNERREQ VARCHAR(250) NOT NULL, REQUESTER VARCHAR(250) NOT NULL, REQUESTED VARCHAR(250) NOT NULL, IDRULE VARCHAR(250) NOT NULL, FILENAME VARCHAR(250) NOT NULL, ORIGINALNAME VARCHAR(250) NOT NULL, FILEINFO VARCHAR(250) NOT NULL, CONSTRAINT runner_pk PRIMARY KEY (REQUESTED, REQUESTER, OWNERREQ, SPECIALID))`,
    'CREATE INDEX IDX_RUNNER ON RUNNER (STARTTRANS, OWNERREQ)',
    `INSERT INTO HOSTS VALUES ('10.0.0.1', 6666, ${f}, ${dialect === 'postgresql' ? "'\\x3561'" : "X'3561'"}, ${t}, ${f}, 1, 'partnerA')`,
    `INSERT INTO RUNNER VALUES (-9223372036854775807, 4, 4, 0, 12, 65536, 1, 6, 'O  ', 'O  ', ${t}, ${t}, '2019-01-02 03:04:05', '2019-01-02 03:04:06', '${OWNER}', '${OWNER}', 'partnerA', 'send', '/out/a.txt', 'a.txt', 'noinfo')`,
    "INSERT INTO MULTIPLEMONITOR VALUES (0, 0, 0, 'svc1')",
  ];
  if (dialect === 'sqlite') statements.push('CREATE TABLE Sequences (name VARCHAR(22) NOT NULL PRIMARY KEY, seq BIGINT NOT NULL)', "INSERT INTO Sequences VALUES ('RUNSEQ', -9223372036854775806)");
  else statements.push('CREATE SEQUENCE RUNSEQ MINVALUE -9223372036854775807 START WITH -9223372036854775806');
  return statements;
}

describe.each(testDialects())('schema management on $name', (dialect) => {
  const dbs: TestDatabase[] = [];
  const stores: Store[] = [];
  let unreachable = false;

  async function fresh(): Promise<{ db: TestDatabase; store: Store } | undefined> {
    const db = await dialect.create();
    if (!db) {
      unreachable = true;
      return undefined;
    }
    dbs.push(db);
    const store = await openStore(db.settings, { hostId: OWNER });
    stores.push(store);
    return { db, store };
  }

  beforeAll(async () => {
    await fresh().then((f) => f && undefined);
  });

  afterAll(async () => {
    for (const s of stores) await s.close();
    for (const d of dbs) await d.drop();
  });

  it('initdb creates exactly the original objects, plus the svc-only SVC_* indexes', async (ctx) => {
    const f = await fresh();
    if (dialect.skip(ctx) || !f || unreachable) return;
    await f.store.initSchema({ hostId: OWNER });
    const seq = f.db.dialect === 'sqlite' ? 'sequences' : 'runseq';
    expect(await tableNames(f.db)).toEqual(['configuration', 'hostconfig', 'hosts', 'multiplemonitor', 'rules', 'runner', seq].sort());
    const indexes = await indexNames(f.db);
    expect(indexes.filter((n) => !n.startsWith('svc_'))).toEqual(['followid_idx', 'idx_config', 'idx_host', 'idx_hostconf', 'idx_mon_filter', 'idx_push_filter', 'idx_rule', 'idx_run_filter']);
    expect(indexes.filter((n) => n.startsWith('svc_'))).toEqual(['svc_idx_requested', 'svc_idx_requester', 'svc_idx_rule']);
    if (f.db.dialect === 'mariadb') {
      // Created with the original's upper-case names (case-sensitive on Linux).
      const names = await f.db.query<{ n: string }>('SELECT table_name AS n FROM information_schema.tables WHERE table_schema = database() ORDER BY 1');
      expect(names.map((r) => r.n)).toEqual(['CONFIGURATION', 'HOSTCONFIG', 'HOSTS', 'MULTIPLEMONITOR', 'RULES', 'RUNNER', 'RUNSEQ']);
    }
  });

  it('initdb leaves nothing behind when it fails half-way (injected failure and bad -minimalSeq)', async (ctx) => {
    const f = await fresh();
    if (dialect.skip(ctx) || !f || unreachable) return;
    const seen: string[] = [];
    const failing = f.store.initSchema({
      hostId: OWNER,
      onStatement: (s) => {
        seen.push(s);
        if (s.startsWith('CREATE INDEX')) throw new Error('injected failure');
      },
    });
    await expect(failing).rejects.toBeInstanceOf(StoreError);
    await expect(failing).rejects.toThrow(/schema creation failed, nothing was created: injected failure/);
    expect(seen.filter((s) => s.startsWith('CREATE TABLE'))).toHaveLength(6);
    expect(await tableNames(f.db)).toEqual([]);
    await expect(f.store.initSchema({ hostId: OWNER, minimalSeq: -9223372036854775808n })).rejects.toThrow(/below the minimum/);
    expect(await tableNames(f.db)).toEqual([]);
    // And a later initdb works.
    await f.store.initSchema({ hostId: OWNER });
    expect(await f.store.isInitialised()).toBe(true);
  });

  it('upgrades a 2.4-era schema to 3.1.0, keeping rows, and only once', async (ctx) => {
    const f = await fresh();
    if (dialect.skip(ctx) || !f || unreachable) return;
    for (const s of oldSchema(f.db.dialect)) await f.db.query(s);
    expect(await f.store.schemaVersion()).toBe('1.1.0');
    expect(await f.store.isInitialised()).toBe(true);
    const statements: string[] = [];
    expect(await f.store.upgradeSchema(OWNER, (s) => statements.push(s))).toEqual({ from: '1.1.0', to: '3.1.0', initialised: true });
    expect(statements.some((s) => s.includes('TRANSFERINFO'))).toBe(true);
    expect(await f.store.schemaVersion()).toBe('3.1.0');
    expect(await f.store.upgradeSchema()).toEqual({ from: '3.1.0', to: '3.1.0', initialised: true });
    expect(await indexNames(f.db)).not.toContain('idx_runner');
    expect(await indexNames(f.db)).toContain('idx_run_filter');
    const host = await f.store.hosts.get('partnerA');
    expect(host).toMatchObject({ address: '10.0.0.1', isActive: true, isProxified: false, adminRole: true });
    const [old] = await f.store.runner.list({ ownerReq: OWNER });
    expect(old).toMatchObject({ specialId: -9223372036854775807n, transferInfo: '{}', rank: 12, updatedInfo: 6 });
    expect(old?.stepStatus.char).toBe('O');
    expect(old?.start.getFullYear()).toBe(2019);
    // The old sequence keeps counting from its negative start.
    expect(await f.store.nextTransferId()).toBe(-9223372036854775806n);
    // Long file names now fit (columns retyped; SQLite never limited them).
    await f.store.runner.updateFilename(old!, `/out/${'x'.repeat(3000)}`);
    expect((await f.store.runner.get(old!))?.filename.length).toBe(3005);
  });

  it('the upgrade at start adds the svc-only indexes to a database already at the current version, once', async (ctx) => {
    const f = await fresh();
    if (dialect.skip(ctx) || !f || unreachable) return;
    await f.store.initSchema({ hostId: OWNER });
    // As the original's tools leave it: their indexes only.
    for (const name of ['SVC_IDX_RULE', 'SVC_IDX_REQUESTER', 'SVC_IDX_REQUESTED']) {
      await f.db.query(f.db.dialect === 'mariadb' || f.db.dialect === 'mysql' ? `DROP INDEX ${name} ON RUNNER` : `DROP INDEX ${name}`);
    }
    expect((await indexNames(f.db)).filter((n) => n.startsWith('svc_'))).toEqual([]);
    const statements: string[] = [];
    expect(await f.store.upgradeSchema(OWNER, (s) => statements.push(s))).toEqual({ from: '3.1.0', to: '3.1.0', initialised: true });
    expect(statements).toHaveLength(3);
    expect(statements.every((s) => s.startsWith('CREATE INDEX'))).toBe(true);
    expect((await indexNames(f.db)).filter((n) => n.startsWith('svc_'))).toEqual(['svc_idx_requested', 'svc_idx_requester', 'svc_idx_rule']);
    const again: string[] = [];
    await f.store.upgradeSchema(OWNER, (s) => again.push(s));
    expect(again).toEqual([]);
    // Two cluster members starting at once on this database: both starts succeed.
    const mysql = f.db.dialect === 'mariadb' || f.db.dialect === 'mysql';
    for (const name of ['SVC_IDX_RULE', 'SVC_IDX_REQUESTER', 'SVC_IDX_REQUESTED']) await f.db.query(mysql ? `DROP INDEX ${name} ON RUNNER` : `DROP INDEX ${name}`);
    const other = await openStore(f.db.settings, { hostId: OWNER });
    stores.push(other);
    await Promise.all([f.store.upgradeSchema(OWNER), other.upgradeSchema(OWNER)]);
    expect((await indexNames(f.db)).filter((n) => n.startsWith('svc_'))).toEqual(['svc_idx_requested', 'svc_idx_requester', 'svc_idx_rule']);
  });

  it('upgrade of an empty database reports it is not initialised', async (ctx) => {
    const f = await fresh();
    if (dialect.skip(ctx) || !f || unreachable) return;
    expect(await f.store.isInitialised()).toBe(false);
    expect(await f.store.upgradeSchema()).toEqual({ from: '1.1.0', to: '1.1.0', initialised: false });
  });
});

describe('connection errors are StoreErrors naming the URL without secrets', () => {
  const expectStoreError = async (promise: Promise<unknown>, ...patterns: RegExp[]) => {
    const err = await promise.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    const message = (err as Error).message;
    for (const p of patterns) expect(message).toMatch(p);
    expect(message).not.toContain('hunter2');
    expect(message).not.toMatch(/\n\s+at /);
    return message;
  };

  it('unreachable PostgreSQL and MariaDB servers', async () => {
    await expectStoreError(openStore(parseJdbcUrl('postgresql', 'jdbc:postgresql://127.0.0.1:1/w', 'u', 'hunter2')),
      /cannot connect to database jdbc:postgresql:\/\/127\.0\.0\.1:1\/w as user u: .*ECONNREFUSED/);
    await expectStoreError(openStore(parseJdbcUrl('mariadb', 'jdbc:mariadb://127.0.0.1:1/w?password=hunter2', 'u')),
      /cannot connect to database jdbc:mariadb:\/\/127\.0\.0\.1:1\/w\?password=\*\*\* as user u: .*ECONNREFUSED/);
  });

  it('wrong credentials', async (ctx) => {
    const pgUrl = new URL(process.env.SVC_TEST_PG_URL || DEFAULT_PG_URL);
    const myUrl = new URL(process.env.SVC_TEST_MYSQL_URL || DEFAULT_MYSQL_URL);
    const pgTry = openStore(parseJdbcUrl('postgresql', `jdbc:postgresql://${pgUrl.host}${pgUrl.pathname}`, 'no_such_user_x', 'hunter2'));
    const myTry = openStore(parseJdbcUrl('mariadb', `jdbc:mariadb://${myUrl.host}${myUrl.pathname}`, 'no_such_user_x', 'hunter2'));
    const [pgMessage, myMessage] = await Promise.all([expectStoreError(pgTry, /no_such_user_x/), expectStoreError(myTry, /no_such_user_x/)]);
    if (/ECONNREFUSED/.test(pgMessage + myMessage) && process.env.SVC_TEST_REQUIRE_DBS !== '1') ctx.skip('servers unreachable');
    expect(pgMessage).toMatch(/role "no_such_user_x" does not exist|password authentication failed/);
    expect(myMessage).toMatch(/Access denied for user 'no_such_user_x'/);
  });

  it('SQLite file that cannot be created', async () => {
    // The parent "directory" is a regular file.
    await expectStoreError(openStore(parseJdbcUrl('sqlite', `${process.execPath}/db.sqlite`)), /cannot open database .*\/db\.sqlite: E[A-Z]+/);
  });

  it('SQLite path whose directory cannot be made under /proc fails fast (Node\'s recursive mkdir loops there)', async () => {
    const started = Date.now();
    await expectStoreError(openStore(parseJdbcUrl('sqlite', 'jdbc:sqlite:/proc/svc-no-such-dir/db/x.sqlite')),
      /cannot open database jdbc:sqlite:\/proc\/svc-no-such-dir\/db\/x\.sqlite: ENOENT: .*mkdir '\/proc\/svc-no-such-dir'/);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 10_000);

  it('H2 configurations open a SQLite file beside the H2 path with a warning', async () => {
    const { mkdtempSync, existsSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/svc-h2-`);
    const warnings: string[] = [];
    const store = await openStore(parseJdbcUrl('h2', `jdbc:h2:${dir}/waarp;AUTO_SERVER=TRUE`, 'sa', 'sa'), { logger: (m) => warnings.push(m) });
    await store.initSchema({ hostId: OWNER });
    await store.close();
    expect(existsSync(`${dir}/waarp.sqlite`)).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/H2 database .* using the SQLite database .*waarp\.sqlite/)]);
    rmSync(dir, { recursive: true, force: true });
  });
});
