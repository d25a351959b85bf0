/**
 * Reads the original's embedded H2 database with H2's own public tool (`org.h2.tools.Shell` and the
 * `CSVWRITE` function), run by Java with the H2 jar of the installation: no Node driver reads H2
 * files (database.md §12 trap 10), and the file formats of H2 1.4.200 (Waarp 3.6.2) and 2.x
 * (Debian's libh2-java) are not readable by each other's engine, so the jar must match the file.
 *
 * The H2 file is never written: it is copied into a private temporary directory first and the
 * tool opens the copy (opening a database, even to read, may rewrite its header and chunks).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { parseCsvRecords, type CsvRecord } from './csv.js';

/** The original's tables, in copy order. */
export const H2_TABLES = ['HOSTS', 'RULES', 'CONFIGURATION', 'HOSTCONFIG', 'MULTIPLEMONITOR', 'RUNNER'] as const;
export type H2Table = (typeof H2_TABLES)[number];

export class H2ReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'H2ReadError';
  }
}

/** Where the database file of a `jdbc:h2:` URL is. */
export interface H2Location {
  /** Path without suffix, as in the URL (`/var/lib/waarp/hosta/db/waarp`). */
  base: string;
  /** The file found: `<base>.mv.db` (MVStore, 1.4 and 2.x) or `<base>.h2.db` (PageStore, 1.3/1.4). */
  file: string;
  /** MVStore `format:` of the header (1 = H2 1.4.x, 2 or more = H2 2.x); undefined for PageStore. */
  format: number | undefined;
}

export interface H2Jar {
  path: string;
  /** `1.4.200`, `2.1.214`... from the file name (after links); undefined when the name carries none. */
  version: string | undefined;
}

export interface H2Content {
  jar: H2Jar;
  /** H2's own answer to H2VERSION(). */
  engineVersion: string;
  /** Rows per table present in the database (a table the database lacks is absent). */
  tables: Map<H2Table, CsvRecord[]>;
  /** Columns present per table (upper case): old schemas lack some (database.md §8.3). */
  columns: Map<H2Table, Set<string>>;
  /** `NEXT VALUE FOR RUNSEQ` on the copy, or undefined when the database has no RUNSEQ. */
  nextSequenceValue: bigint | undefined;
}

/**
 * The H2 file of `url` (`jdbc:h2:[file:]PATH[;OPTIONS]`). A relative PATH is taken from each of
 * `baseDirs` in turn, the first where the file exists: the working directory first (where Java
 * resolved it: config.md §1.4, the unit's WorkingDirectory), then server.xml's. `~` is the home
 * directory. Server and in-memory URLs are refused.
 */
export async function locateH2(url: string, baseDirs: readonly string[], home: string): Promise<H2Location> {
  const body = (url.trim().replace(/^jdbc:h2:/i, '').split(';')[0] ?? '').trim().replace(/^file:/i, '');
  if (/^(tcp|ssl|mem):/i.test(body)) {
    throw new H2ReadError(`${url}: an H2 ${body.split(':')[0]}: database cannot be copied from its files; export it to PostgreSQL/MariaDB with H2's tools, or give the embedded file's URL`);
  }
  if (body === '') throw new H2ReadError(`${url}: the H2 URL names no file`);
  const expanded = body === '~' || body.startsWith('~/') ? home + body.slice(1) : body;
  const bases = isAbsolute(expanded) ? [expanded] : [...new Set(baseDirs.map((d) => resolve(d, expanded)))];
  for (const base of bases) {
    for (const suffix of ['.mv.db', '.h2.db']) {
      const file = base + suffix;
      if (await stat(file).then((s) => s.isFile(), () => false)) {
        return { base, file, format: suffix === '.mv.db' ? await mvFormat(file) : undefined };
      }
    }
  }
  const tried = bases.map((b) => `${b}.mv.db`).join(', ');
  const hint = isAbsolute(expanded) ? '' : ' (a relative H2 path is the Java server\'s working directory\'s: run migrate from there, or make dbserver absolute)';
  throw new H2ReadError(`${url}: no H2 database file (looked for ${tried} and the same with .h2.db)${hint}`);
}

/** The `format:N` of an MVStore file header (first block, plain text). */
async function mvFormat(file: string): Promise<number | undefined> {
  const head = (await readFile(file)).subarray(0, 256).toString('latin1');
  const m = /(?:^|,)format:([0-9a-f]+)/.exec(head);
  return m ? Number.parseInt(m[1] as string, 16) : undefined;
}

const JAR_NAME = /^h2(?:-(\d+\.\d+\.\d+))?\.jar$/i;

async function jarOf(path: string): Promise<H2Jar> {
  const real = await realpath(path).catch(() => path);
  const version = JAR_NAME.exec(basename(real))?.[1] ?? JAR_NAME.exec(basename(path))?.[1];
  return { path, version };
}

/**
 * H2 jars of the Java installation: `lib/` folders of the directories above server.xml (the
 * portable archive keeps `etc/` and `lib/` side by side), the packaged `/usr/share/waarp` trees,
 * `$WAARP_HOME/lib`, then Debian's `/usr/share/java`: `h2*.jar`, then Waarp's jars that bundle
 * H2 (a jar with dependencies holding org.h2.tools.Shell).
 */
export async function findH2Jars(serverXml: string, env: NodeJS.ProcessEnv): Promise<H2Jar[]> {
  const dirs: string[] = [];
  let dir = dirname(resolve(serverXml));
  for (let i = 0; i < 5; i++) {
    dirs.push(join(dir, 'lib'));
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  if (env.WAARP_HOME) dirs.push(join(env.WAARP_HOME, 'lib'));
  dirs.push('/usr/share/waarp/lib', '/usr/share/waarp/r66/lib', '/opt/waarp/lib', '/usr/share/java');
  const jars: H2Jar[] = [];
  const bundles: H2Jar[] = [];
  const seen = new Set<string>();
  for (const d of dirs) {
    const names = await readdir(d).catch(() => [] as string[]);
    for (const name of names.sort()) {
      const path = join(d, name);
      if (seen.has(path)) continue;
      seen.add(path);
      if (JAR_NAME.test(name)) jars.push(await jarOf(path));
      else if (BUNDLE_NAME.test(name) && (await holdsH2Shell(path))) bundles.push({ path, version: undefined });
    }
  }
  // A bundle's H2 version is not in its name: tried after the named jars that fit (chooseH2Jar).
  return [...jars, ...bundles];
}

/** Waarp's jars that may bundle their dependencies (`WaarpR66-3.6.2-jar-with-dependencies.jar`). */
const BUNDLE_NAME = /(waarp|r66).*\.jar$/i;
const H2_SHELL_ENTRY = Buffer.from('org/h2/tools/Shell.class');

/** True when the jar lists H2's Shell (a zip keeps its entry names uncompressed). */
async function holdsH2Shell(path: string): Promise<boolean> {
  const bytes = await readFile(path).catch(() => undefined);
  return bytes !== undefined && bytes.includes(H2_SHELL_ENTRY);
}

/** Whether a jar's engine can open a file: 1.x reads format 1 and PageStore, 2.x reads format 2+. */
function fits(jar: H2Jar, location: H2Location): boolean | undefined {
  if (jar.version === undefined) return undefined;
  const major = Number(jar.version.split('.')[0]);
  if (location.format === undefined) return major < 2;
  return location.format >= 2 ? major >= 2 : major < 2;
}

/** The jar to use: the one given, else the first found whose version fits the file's format. */
export async function chooseH2Jar(given: string | undefined, found: H2Jar[], location: H2Location): Promise<H2Jar> {
  if (given !== undefined) {
    if (!(await stat(given).then((s) => s.isFile(), () => false))) throw new H2ReadError(`-h2jar ${given}: no such file`);
    return jarOf(given);
  }
  const fitting = found.find((j) => fits(j, location) === true) ?? found.find((j) => fits(j, location) === undefined);
  if (fitting) return fitting;
  const want = location.format === undefined || location.format < 2 ? 'H2 1.4.x (Waarp 3.6.2 ships h2-1.4.200.jar)' : 'H2 2.x';
  const seen = found.length ? ` (found: ${found.map((j) => j.path).join(', ')})` : '';
  throw new H2ReadError(`${location.file} needs ${want} to be read; no such jar among the installation's jars${seen}: give it with -h2jar`);
}

const sqlText = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** One `CALL CSVWRITE(file, query)` statement. */
function csvWrite(file: string, query: string): string {
  return `CALL CSVWRITE(${sqlText(file)}, ${sqlText(query)}, 'charset=UTF-8')`;
}

export interface JavaRunner {
  (args: string[]): Promise<{ stdout: string; stderr: string; code: number }>;
}

/** Runs `java` (from JAVA_HOME when set) with a generous timeout for large histories. */
export function javaRunner(env: NodeJS.ProcessEnv): JavaRunner {
  const java = env.JAVA_HOME ? join(env.JAVA_HOME, 'bin', 'java') : 'java';
  return (args) => new Promise((res, rej) => {
    execFile(java, args, { timeout: 30 * 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...env, JAVA_TOOL_OPTIONS: '' } }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        rej(new H2ReadError(`cannot run ${java}: Java is needed to read the H2 database (set JAVA_HOME or put java in PATH)`));
        return;
      }
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      res({ stdout: String(stdout), stderr: String(stderr), code });
    });
  });
}

/** The first H2 error of the tool's output, without the stack trace. */
function h2Error(out: string): string | undefined {
  const m = /(?:^Error: |Exception[^:\n]*: )(?:org\.h2\.[\w.]+: )?([^\n]+)/m.exec(out);
  return m?.[1]?.trim();
}

interface ShellCall {
  jar: H2Jar;
  url: string;
  user: string;
  password: string;
  run: JavaRunner;
}

async function shell(call: ShellCall, statements: string[]): Promise<void> {
  // The password is on the java command line while the tool runs (H2's Shell has no other way);
  // the database it opens is our private copy.
  const { stdout, stderr, code } = await call.run([
    '-cp', call.jar.path, 'org.h2.tools.Shell', '-url', call.url, '-user', call.user, '-password', call.password, '-sql', statements.join(';\n'),
  ]);
  const error = h2Error(`${stdout}\n${stderr}`);
  if (code !== 0 || error !== undefined) {
    throw new H2ReadError(`H2 ${call.jar.version ?? ''} (${call.jar.path}) could not read the database: ${error ?? `java exited with ${code}`}`.replace('H2  (', 'H2 ('));
  }
}

/** The select of one table: every column present, HOSTKEY as its text (it holds ASCII hex). */
function selectOf(table: H2Table, columns: Set<string>): string {
  const list = [...columns].map((c) => (table === 'HOSTS' && c === 'HOSTKEY' ? 'UTF8TOSTRING(HOSTKEY) AS HOSTKEY' : c));
  return `SELECT ${list.join(', ')} FROM ${table}`;
}

export interface ReadH2Options {
  location: H2Location;
  jar: H2Jar;
  user: string;
  password: string;
  run: JavaRunner;
}

/** Copies the H2 file to a temporary directory and reads every table of the original from the copy. */
export async function readH2(opts: ReadH2Options): Promise<H2Content> {
  // A process holding the database open (AUTO_SERVER, the original's sample URL) keeps this file
  // beside it: a copy made meanwhile may miss what it writes, and two servers would run one host.
  const lock = `${opts.location.base}.lock.db`;
  if (await stat(lock).then(() => true, () => false)) {
    throw new H2ReadError(`${opts.location.file} is open (lock file ${lock}): stop the Java server first (docs/migration.md, step 2); if no Java process uses it (a lock left by a crash), remove ${lock} and run again`);
  }
  const work = await mkdtemp(join(tmpdir(), 'svc-r66-migrate-'));
  try {
    const suffix = opts.location.file.endsWith('.h2.db') ? '.h2.db' : '.mv.db';
    await copyFile(opts.location.file, join(work, `copy${suffix}`));
    const options = suffix === '.h2.db' ? ';MV_STORE=FALSE' : '';
    const call: ShellCall = { jar: opts.jar, url: `jdbc:h2:${join(work, 'copy')};IFEXISTS=TRUE${options}`, user: opts.user, password: opts.password, run: opts.run };

    const columnsCsv = join(work, 'columns.csv');
    const sequencesCsv = join(work, 'sequences.csv');
    const versionCsv = join(work, 'version.csv');
    await shell(call, [
      csvWrite(columnsCsv, "SELECT TABLE_NAME, COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'PUBLIC'"),
      csvWrite(sequencesCsv, "SELECT SEQUENCE_NAME FROM INFORMATION_SCHEMA.SEQUENCES WHERE SEQUENCE_SCHEMA = 'PUBLIC'"),
      csvWrite(versionCsv, 'SELECT H2VERSION() AS V'),
    ]);
    const columns = new Map<H2Table, Set<string>>();
    for (const r of parseCsvRecords(await readFile(columnsCsv, 'utf8'))) {
      const table = (r.TABLE_NAME ?? '').toUpperCase() as H2Table;
      if (!H2_TABLES.includes(table)) continue;
      const set = columns.get(table) ?? new Set<string>();
      set.add((r.COLUMN_NAME ?? '').toUpperCase());
      columns.set(table, set);
    }
    const hasSequence = parseCsvRecords(await readFile(sequencesCsv, 'utf8')).some((r) => (r.SEQUENCE_NAME ?? '').toUpperCase() === 'RUNSEQ');
    const engineVersion = parseCsvRecords(await readFile(versionCsv, 'utf8'))[0]?.V ?? 'unknown';

    const statements: string[] = [];
    for (const [table, cols] of columns) statements.push(csvWrite(join(work, `${table}.csv`), selectOf(table, cols)));
    // On the copy: the next value the original would have given (its cache may have skipped some).
    if (hasSequence) statements.push(csvWrite(join(work, 'runseq.csv'), 'SELECT NEXT VALUE FOR RUNSEQ AS N'));
    if (statements.length > 0) await shell(call, statements);

    const tables = new Map<H2Table, CsvRecord[]>();
    for (const table of columns.keys()) tables.set(table, parseCsvRecords(await readFile(join(work, `${table}.csv`), 'utf8')));
    let nextSequenceValue: bigint | undefined;
    if (hasSequence) {
      const n = parseCsvRecords(await readFile(join(work, 'runseq.csv'), 'utf8'))[0]?.N;
      if (n) nextSequenceValue = BigInt(n);
    }
    return { jar: opts.jar, engineVersion, tables, columns, nextSequenceValue };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
