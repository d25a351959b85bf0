// Sections shared by server.xml and client.xml: identity, directory, limit, db, ssl, business,
// aliases, extendTaskFactory (config.md §3.1, 3.4-3.7, 3.9, 3.11, 3.12) — readers and writers.
import { realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { makeDirsSync } from '../fs/make-dirs.js';
import { readCryptoKeyFile } from './crypto.js';
import { ConfigError, describeIoError } from './errors.js';
import type { AliasEntry, DbConfig, DbDialect, DirectoryConfig, IdentityConfig, LimitConfig, SslConfig } from './types.js';
import { round10, SectionReader, splitWords } from './values.js';
import { el, section, type XmlOut } from './xml-write.js';

/** Resolves a file path named in a configuration against the working directory (§1.4). */
export function resolveConfigPath(value: string): string {
  return resolve(value);
}

/** Optional path element, resolved; undefined when absent or empty. */
export function optionalPath(sec: SectionReader, name: string): string | undefined {
  const v = sec.nonEmpty(name);
  return v === undefined ? undefined : resolveConfigPath(v);
}

// ---------------------------------------------------------------- identity

export async function readIdentity(sec: SectionReader): Promise<IdentityConfig> {
  if (!sec.present) throw sec.error(undefined, 'missing section; expected <identity> with <hostid> and <cryptokey>');
  const hostId = sec.required('hostid', 'the host id of this host');
  const sslHostId = sec.nonEmpty('sslhostid');
  const keyPath = sec.required('cryptokey', 'the path of the DES cryptokey file');
  const cryptoKeyFile = resolveConfigPath(keyPath);
  let cryptoKey: Buffer;
  try {
    cryptoKey = await readCryptoKeyFile(cryptoKeyFile);
  } catch (err) {
    if (err instanceof ConfigError) throw sec.error('cryptokey', `${err.detail} (${cryptoKeyFile})`);
    throw err;
  }
  return { hostId, sslHostId, cryptoKeyFile, cryptoKey, authentFile: optionalPath(sec, 'authentfile'), locale: sec.nonEmpty('locale') ?? 'en' };
}

export function writeIdentity(id: IdentityConfig, withAuthent = true): XmlOut {
  return section('identity', [
    ...el('hostid', id.hostId),
    ...el('sslhostid', id.sslHostId),
    ...el('cryptokey', id.cryptoKeyFile),
    ...(withAuthent ? el('authentfile', id.authentFile) : []),
    ...el('locale', id.locale === 'en' ? undefined : id.locale),
  ]);
}

// ---------------------------------------------------------------- directory

const DIR_NAMES = ['conf', 'arch', 'in', 'out', 'work'] as const;

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isDirectory(), () => false);
}

/** Reads `directory`: serverhome must exist; the five sub-directories are mandatory (trap T1). */
export async function readDirectories(sec: SectionReader): Promise<DirectoryConfig> {
  if (!sec.present) throw sec.error(undefined, 'missing section; expected <directory> with <serverhome>, <in>, <out>, <arch>, <work>, <conf>');
  const homeText = sec.required('serverhome', 'an existing directory');
  let serverHome: string;
  try {
    serverHome = await realpath(resolveConfigPath(homeText));
  } catch (err) {
    throw sec.error('serverhome', `${describeIoError(err)}: ${homeText}; expected an existing directory`);
  }
  if (!(await isDirectory(serverHome))) throw sec.error('serverhome', `not a directory: ${homeText}`);
  const virtual = { in: '', out: '', arch: '', work: '', conf: '' };
  // Same order as the original: conf, arch, then in, out, work.
  for (const name of DIR_NAMES) {
    const value = sec.required(name, `a directory relative to serverhome (e.g. ${name.toUpperCase()})`);
    let rel = value;
    if (isAbsolute(value) && (await isDirectory(value))) {
      const real = await realpath(value);
      const inside = relative(serverHome, real);
      if (inside.startsWith('..') || isAbsolute(inside)) throw sec.error(name, `directory ${value} lies outside serverhome ${serverHome}`);
      rel = inside;
    }
    const v = `/${rel}`.replace(/\\+/g, '/').replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
    virtual[name] = v;
    const abs = virtualToAbsolute(serverHome, v);
    try {
      makeDirsSync(abs);
    } catch (err) {
      throw sec.error(name, `cannot create directory ${abs}: ${describeIoError(err)}`);
    }
  }
  const readable: string[] = [];
  // Ours (issue 34): one or more <readabledirs>, each a comma-separated list of absolute directories.
  for (const list of sec.strings('readabledirs')) {
    for (const item of list.split(',').map((x) => x.trim()).filter((x) => x !== '')) {
      if (!isAbsolute(item)) throw sec.error('readabledirs', `${item} is not an absolute directory`);
      // The policy compares real paths (symbolic links resolved): so is the root.
      readable.push(await realpath(item).catch(() => resolve(item)));
    }
  }
  return {
    serverHome, virtual,
    in: virtualToAbsolute(serverHome, virtual.in), out: virtualToAbsolute(serverHome, virtual.out),
    arch: virtualToAbsolute(serverHome, virtual.arch), work: virtualToAbsolute(serverHome, virtual.work),
    conf: virtualToAbsolute(serverHome, virtual.conf),
    ...(readable.length > 0 ? { readable } : {}),
  };
}

/** `<serverhome>` + a virtual path such as `/in/x`. */
export function virtualToAbsolute(serverHome: string, virtualPath: string): string {
  return resolve(serverHome, `.${sep}${virtualPath.replace(/^\/+/, '')}`);
}

export function writeDirectories(d: DirectoryConfig): XmlOut {
  const strip = (v: string) => v.replace(/^\/+/, '') || '.';
  return section('directory', [
    ...el('serverhome', d.serverHome),
    ...el('in', strip(d.virtual.in)), ...el('out', strip(d.virtual.out)), ...el('arch', strip(d.virtual.arch)),
    ...el('work', strip(d.virtual.work)), ...el('conf', strip(d.virtual.conf)),
    ...(d.readable !== undefined && d.readable.length > 0 ? el('readabledirs', d.readable.join(',')) : []),
  ]);
}

// ---------------------------------------------------------------- limit

function defaultServerThreads(): number {
  const cores = availableParallelism();
  const n = cores * 2 + 1;
  return n > 32 ? cores + 1 : n;
}

/** Reads `limit` with every default and normalisation of config.md §3.6 (absent section = defaults). */
export function readLimits(sec: SectionReader): LimitConfig {
  const serverThread = sec.int('serverthread', defaultServerThreads());
  const clientThread = Math.min(sec.int('clientthread', Math.max(10, serverThread * 10)), 50000);
  const nonNeg = (v: number) => (v <= 0 ? 0 : v);
  const useCpuLimitPresent = sec.has('usecpulimit');
  const cpuLimitRaw = useCpuLimitPresent ? sec.double('cpulimit', 1.0) : 1.0;
  const highCpuRaw = sec.double('highcpulimit', 0.0);
  const highCpuLimit = highCpuRaw < 0.1 ? 0 : highCpuRaw;
  const lowCpuRaw = sec.double('lowcpulimit', 0.0);
  const pd = sec.double('percentdecrease', 0.01);
  const digest = sec.int('digest', 2);
  const useThrift = sec.int('usethrift', 0);
  return {
    serverThread,
    clientThread,
    memoryLimit: Math.min(sec.long('memorylimit', 1073741824), 2147483647),
    sessionLimit: nonNeg(sec.long('sessionlimit', 1073741824)),
    globalLimit: nonNeg(sec.long('globallimit', 107374182400)),
    delayLimit: nonNeg(round10(sec.long('delaylimit', 1000))),
    runLimit: Math.min(Math.max(sec.int('runlimit', 1000), 2), 50000),
    delayCommand: Math.max(round10(sec.long('delaycommand', 5000)), 100),
    delayRetry: Math.max(round10(sec.long('delayretry', 30000)), 1000),
    timeoutCon: round10(sec.long('timeoutcon', 30000)),
    blockSize: sec.int('blocksize', 65536),
    gapRestart: Math.max(sec.int('gaprestart', 30), 1),
    useNio: sec.boolean('usenio', false),
    useCpuLimit: sec.boolean('usecpulimit', false),
    useJdkCpuLimit: useCpuLimitPresent ? sec.boolean('usejdkcpulimit', false) : false,
    cpuLimit: cpuLimitRaw > 0.99 ? 1.0 : cpuLimitRaw,
    connLimit: ((v) => (v < 100 ? 0 : v))(sec.int('connlimit', 0)),
    lowCpuLimit: lowCpuRaw <= 0 ? highCpuLimit / 2 : lowCpuRaw,
    highCpuLimit,
    percentDecrease: pd <= 0 ? 0.01 : pd >= 1 ? pd / 100 : pd,
    delayThrottle: Math.max(round10(sec.long('delaythrottle', 1000000)), 100),
    limitLowBandwidth: Math.max(sec.long('limitlowbandwidth', 1048576), 1048576),
    digest, // 0..7 by the range table (out of range: refused; the original took CRC32)
    useThrift: useThrift > 0 ? useThrift : 0,
    checkVersion: sec.boolean('checkversion', true),
    globalDigest: sec.boolean('globaldigest', true),
    localDigest: sec.boolean('localdigest', true),
    compression: sec.boolean('compression', false),
  };
}

export function writeLimits(l: LimitConfig): XmlOut {
  return section('limit', [
    ...el('serverthread', l.serverThread), ...el('clientthread', l.clientThread), ...el('memorylimit', l.memoryLimit),
    ...el('sessionlimit', l.sessionLimit), ...el('globallimit', l.globalLimit), ...el('delaylimit', l.delayLimit),
    ...el('runlimit', l.runLimit), ...el('delaycommand', l.delayCommand), ...el('delayretry', l.delayRetry),
    ...el('timeoutcon', l.timeoutCon), ...el('blocksize', l.blockSize), ...el('gaprestart', l.gapRestart),
    ...el('usenio', l.useNio), ...el('usecpulimit', l.useCpuLimit), ...el('usejdkcpulimit', l.useJdkCpuLimit),
    ...el('cpulimit', l.cpuLimit), ...el('connlimit', l.connLimit), ...el('lowcpulimit', l.lowCpuLimit),
    ...el('highcpulimit', l.highCpuLimit), ...el('percentdecrease', l.percentDecrease), ...el('delaythrottle', l.delayThrottle),
    ...el('limitlowbandwidth', l.limitLowBandwidth), ...el('digest', l.digest), ...el('usethrift', l.useThrift > 0 ? l.useThrift : undefined),
    ...el('checkversion', l.checkVersion), ...el('globaldigest', l.globalDigest), ...el('localdigest', l.localDigest),
    ...el('compression', l.compression),
  ]);
}

// ---------------------------------------------------------------- db

/**
 * Dialect of a `dbdriver` by substring, in the original's order (config.md §3.7); `sqlite` is our
 * own embedded addition and `postgres` (without `ql`) is accepted too. The one driver rule: the
 * store's URL reader (store/jdbc-url.ts) falls back to it when the URL names no dialect.
 */
export function dialectOf(driver: string): DbDialect | undefined {
  const d = driver.toLowerCase();
  for (const [needle, name] of DRIVER_SUBSTRINGS) if (d.includes(needle)) return name;
  return undefined;
}

const DRIVER_SUBSTRINGS: ReadonlyArray<readonly [string, DbDialect]> = [
  ['oracle', 'oracle'], ['mysql', 'mysql'], ['postgres', 'postgresql'], ['h2', 'h2'], ['mariadb', 'mariadb'], ['sqlite', 'sqlite'],
];

/** Reads `db`: null when no database is configured. */
export function readDb(sec: SectionReader, warnings: string[]): { db: DbConfig | null; taskRunnerNoDb: boolean } {
  if (!sec.present) return { db: null, taskRunnerNoDb: false };
  const taskRunnerNoDb = sec.boolean('taskrunnernodb', false);
  if (taskRunnerNoDb) return { db: null, taskRunnerNoDb };
  const driver = sec.nonEmpty('dbdriver');
  if (driver === undefined) {
    warnings.push(`${sec.file}: <db/dbdriver> is empty: running without database`);
    return { db: null, taskRunnerNoDb };
  }
  const dialect = dialectOf(driver);
  if (!dialect) throw sec.error('dbdriver', `unknown database driver "${driver}"; expected one of oracle, mysql, mariadb, postgresql, h2, sqlite`);
  const server = sec.required('dbserver', 'the JDBC URL of the database');
  const user = sec.required('dbuser', 'the database user name');
  const password = sec.nonEmpty('dbpasswd');
  if (password === undefined) throw sec.error('dbpasswd', 'missing or empty; expected the database password (clear text, must not be empty)');
  // The deprecated dbcheck wins over autoUpgrade when present (trap T8).
  const autoUpgrade = sec.has('dbcheck') ? sec.boolean('dbcheck', false) : sec.boolean('autoUpgrade', false);
  return { db: { driver, dialect, server, user, password, autoUpgrade }, taskRunnerNoDb };
}

export function writeDb(db: DbConfig | null, taskRunnerNoDb: boolean): XmlOut[] {
  if (db === null) return taskRunnerNoDb ? [section('db', el('taskrunnernodb', true))] : [];
  return [section('db', [
    ...el('dbdriver', db.driver), ...el('dbserver', db.server), ...el('dbuser', db.user), ...el('dbpasswd', db.password),
    ...el('autoUpgrade', db.autoUpgrade),
  ])];
}

// ---------------------------------------------------------------- ssl

export function readSsl(sec: SectionReader): SslConfig {
  const keyPath = optionalPath(sec, 'keypath');
  const trustKeyPath = optionalPath(sec, 'trustkeypath');
  return {
    keyPath,
    keyStorePassword: keyPath === undefined ? sec.nonEmpty('keystorepass') : sec.required('keystorepass', 'the keystore password (required with keypath)'),
    keyPassword: keyPath === undefined ? sec.nonEmpty('keypass') : sec.required('keypass', 'the private-key password (required with keypath)'),
    trustKeyPath,
    trustKeyStorePassword: trustKeyPath === undefined ? sec.nonEmpty('trustkeystorepass') : sec.required('trustkeystorepass', 'the truststore password (required with trustkeypath)'),
    trustUseClientAuthenticate: trustKeyPath === undefined ? false : sec.boolean('trustuseclientauthenticate', false),
  };
}

export function writeSsl(ssl: SslConfig | null): XmlOut[] {
  if (ssl === null) return [];
  return [section('ssl', [
    ...el('keypath', ssl.keyPath), ...el('keystorepass', ssl.keyStorePassword), ...el('keypass', ssl.keyPassword),
    ...el('trustkeypath', ssl.trustKeyPath), ...el('trustkeystorepass', ssl.trustKeyStorePassword),
    ...el('trustuseclientauthenticate', ssl.trustKeyPath === undefined ? undefined : ssl.trustUseClientAuthenticate),
  ])];
}

// ---------------------------------------------------------------- business, aliases, extendTaskFactory

/** `business/businessid` values (not `businessids`: trap T5), trimmed, empty ones skipped. */
export function readBusiness(sec: SectionReader): string[] {
  return sec.strings('businessid').filter((s) => s !== '');
}

export function writeBusiness(ids: readonly string[]): XmlOut[] {
  return ids.length === 0 ? [] : [section('business', ids.flatMap((id) => el('businessid', id)))];
}

export function readAliases(sec: SectionReader): AliasEntry[] {
  const out: AliasEntry[] = [];
  for (const a of sec.sections('alias')) {
    const realId = a.nonEmpty('realid');
    const aliasIds = splitWords(a.string('aliasid') ?? '');
    if (realId !== undefined && aliasIds.length > 0) out.push({ realId, aliasIds });
  }
  return out;
}

export function writeAliases(aliases: readonly AliasEntry[]): XmlOut[] {
  return aliases.length === 0 ? [] : [section('aliases', aliases.map((a) => section('alias', [...el('realid', a.realId), ...el('aliasid', a.aliasIds.join(' '))])))];
}

export function readExtendTaskFactories(sec: SectionReader): string[] {
  return (sec.string('extendedtaskfactories') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export function writeExtendTaskFactories(list: readonly string[]): XmlOut[] {
  return list.length === 0 ? [] : [section('extendTaskFactory', el('extendedtaskfactories', list.join(',')))];
}
