// A Java R66 host's H2 database for the migration tests, built with Debian's libh2-java
// (/usr/share/java/h2.jar, H2 2.1.x) through H2's own RunScript tool: the original's schema
// (database.md §8.2 with the H2 types of §2) and rows given as SQL values.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export const DEBIAN_H2_JAR = '/usr/share/java/h2.jar';
/**
 * An H2 1.4.x jar, the line Waarp 3.6.2 ships (1.4.200): Debian bullseye's libh2-java 1.4.197,
 * which .ci/run unpacks from Debian's archive to this path (SVC_TEST_H2_14_JAR chooses another).
 */
export const H2_14_JAR = process.env.SVC_TEST_H2_14_JAR ?? '/opt/svc-r66-test/h2-1.4.197.jar';

export function h2Available(jar: string = DEBIAN_H2_JAR): boolean {
  if (!existsSync(jar)) return false;
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The original's DDL on H2 (what its initdb creates for schema 3.1.0). */
export const ORIGINAL_H2_DDL = `
CREATE TABLE IF NOT EXISTS MULTIPLEMONITOR (COUNTCONFIG INTEGER NOT NULL, COUNTHOST INTEGER NOT NULL, COUNTRULE INTEGER NOT NULL, HOSTID VARCHAR(255) PRIMARY KEY);
CREATE TABLE IF NOT EXISTS CONFIGURATION (READGLOBALLIMIT BIGINT NOT NULL, WRITEGLOBALLIMIT BIGINT NOT NULL, READSESSIONLIMIT BIGINT NOT NULL, WRITESESSIONLIMIT BIGINT NOT NULL, DELAYLIMIT BIGINT NOT NULL, UPDATEDINFO INTEGER NOT NULL, HOSTID VARCHAR(255) PRIMARY KEY);
CREATE TABLE IF NOT EXISTS HOSTCONFIG (BUSINESS VARCHAR(12288) NOT NULL, ROLES VARCHAR(12288) NOT NULL, ALIASES VARCHAR(12288) NOT NULL, OTHERS VARCHAR(12288) NOT NULL, UPDATEDINFO INTEGER NOT NULL, HOSTID VARCHAR(255) PRIMARY KEY);
CREATE TABLE IF NOT EXISTS HOSTS (ADDRESS VARCHAR(255) NOT NULL, PORT INTEGER NOT NULL, ISSSL BOOLEAN NOT NULL, HOSTKEY VARBINARY(510) NOT NULL, ADMINROLE BOOLEAN NOT NULL, ISCLIENT BOOLEAN NOT NULL, ISACTIVE BOOLEAN NOT NULL, ISPROXIFIED BOOLEAN NOT NULL, UPDATEDINFO INTEGER NOT NULL, HOSTID VARCHAR(255) PRIMARY KEY);
CREATE TABLE IF NOT EXISTS RULES (HOSTIDS VARCHAR(12288), MODETRANS INTEGER, RECVPATH VARCHAR(8096), SENDPATH VARCHAR(8096), ARCHIVEPATH VARCHAR(8096), WORKPATH VARCHAR(8096), RPRETASKS VARCHAR(12288), RPOSTTASKS VARCHAR(12288), RERRORTASKS VARCHAR(12288), SPRETASKS VARCHAR(12288), SPOSTTASKS VARCHAR(12288), SERRORTASKS VARCHAR(12288), UPDATEDINFO INTEGER, IDRULE VARCHAR(255) PRIMARY KEY);
CREATE TABLE IF NOT EXISTS RUNNER (SPECIALID BIGINT NOT NULL, GLOBALSTEP INTEGER NOT NULL, GLOBALLASTSTEP INTEGER NOT NULL, STEP INTEGER NOT NULL, RANK INTEGER NOT NULL, BLOCKSZ INTEGER NOT NULL, MODETRANS INTEGER NOT NULL, UPDATEDINFO INTEGER NOT NULL, STEPSTATUS CHAR(3) NOT NULL, INFOSTATUS CHAR(3) NOT NULL, RETRIEVEMODE BOOLEAN NOT NULL, ISMOVED BOOLEAN NOT NULL, STARTTRANS TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), STOPTRANS TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), OWNERREQ VARCHAR(255) NOT NULL, REQUESTER VARCHAR(255) NOT NULL, REQUESTED VARCHAR(255) NOT NULL, IDRULE VARCHAR(255) NOT NULL, FILENAME VARCHAR(8096) NOT NULL, ORIGINALNAME VARCHAR(8096) NOT NULL, FILEINFO VARCHAR(8096) NOT NULL, TRANSFERINFO VARCHAR(8096) NOT NULL, CONSTRAINT runner_pk PRIMARY KEY (REQUESTED, REQUESTER, OWNERREQ, SPECIALID));
CREATE INDEX IF NOT EXISTS IDX_RUN_FILTER ON RUNNER (UPDATEDINFO, OWNERREQ, STARTTRANS);
CREATE SEQUENCE IF NOT EXISTS RUNSEQ START WITH 1693900000001 MINVALUE -9223372036854775807;
`;

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export interface JavaRunnerRow {
  id: bigint;
  owner: string;
  requester: string;
  requested: string;
  rule: string;
  mode: number;
  retrieve: boolean;
  globalStep: number;
  globalLastStep: number;
  rank: number;
  blockSize: number;
  updatedInfo: number;
  status: string;
  filename: string;
  originalName: string;
  start?: string;
  transferInfo?: string;
}

export function runnerInsert(r: JavaRunnerRow): string {
  const start = r.start ?? '2026-01-05 10:12:01.5';
  return `INSERT INTO RUNNER VALUES (${r.id}, ${r.globalStep}, ${r.globalLastStep}, 0, ${r.rank}, ${r.blockSize}, ${r.mode}, ${r.updatedInfo}, ${q(r.status)}, ${q(r.status)}, `
    + `${r.retrieve ? 'TRUE' : 'FALSE'}, FALSE, TIMESTAMP ${q(start)}, TIMESTAMP ${q(start)}, ${q(r.owner)}, ${q(r.requester)}, ${q(r.requested)}, ${q(r.rule)}, `
    + `${q(r.filename)}, ${q(r.originalName)}, 'noinfo', ${q(r.transferInfo ?? '{"ORIGINALSIZE":-1}')});`;
}

export function hostInsert(id: string, port: number, keyHex: string, admin = false): string {
  return `INSERT INTO HOSTS VALUES ('127.0.0.1', ${port}, FALSE, STRINGTOUTF8(${q(keyHex)}), ${admin ? 'TRUE' : 'FALSE'}, FALSE, TRUE, FALSE, 1, ${q(id)});`;
}

export function ruleInsert(id: string, mode: number, rposttasks = '<tasks></tasks>'): string {
  return `INSERT INTO RULES VALUES ('<hostids></hostids>', ${mode}, NULL, NULL, NULL, NULL, '<tasks></tasks>', ${q(rposttasks)}, '<tasks></tasks>', '<tasks></tasks>', '<tasks></tasks>', '<tasks></tasks>', 1, ${q(id)});`;
}

/**
 * Creates `<base>.mv.db` with the original's schema plus `statements`; `urlOptions` `;MV_STORE=FALSE`
 * (H2 1.4 only) makes the older PageStore file `<base>.h2.db` instead.
 */
export function buildJavaH2(base: string, user: string, password: string, statements: string[], jar: string = DEBIAN_H2_JAR, urlOptions = ''): void {
  mkdirSync(dirname(base), { recursive: true });
  const script = `${base}.init.sql`;
  writeFileSync(script, `${ORIGINAL_H2_DDL}\n${statements.join('\n')}\n`);
  execFileSync('java', ['-cp', jar, 'org.h2.tools.RunScript', '-url', `jdbc:h2:${base}${urlOptions}`, '-user', user, '-password', password, '-script', script], { stdio: 'pipe' });
}

/** The Java host's `<db>` section for an H2 file. */
export function h2DbSection(base: string, user: string, password: string): string {
  return `<db><dbdriver>h2</dbdriver><dbserver>jdbc:h2:${base};IFEXISTS=TRUE;AUTO_SERVER=TRUE</dbserver><dbuser>${user}</dbuser><dbpasswd>${password}</dbpasswd></db>`;
}

