// client.xml (config.md §4) in its full form, the no-database form (ClientNoDB: same reader) and
// the submit-only form read by asend/masend without -client (§4.4).
import { resolve } from 'node:path';
import {
  optionalPath, readAliases, readBusiness, readDb, readDirectories, readExtendTaskFactories, readIdentity, readLimits, readSsl,
  writeAliases, writeBusiness, writeDb, writeDirectories, writeExtendTaskFactories, writeIdentity, writeLimits, writeSsl,
} from './common-sections.js';
import { ignoredClientSettings, unusedElementsLine } from './ignored-settings.js';
import type { ClientConfig, SpooledConfig, SpooledDaemonConfig } from './types.js';
import { isSaneValue, SectionReader } from './values.js';
import { readXmlFile } from './xml-read.js';
import { el, section, writeXmlFile, type XmlOut } from './xml-write.js';

/** How to read the file: `full` (client commands) or `submit` (asend/masend without -client). */
export interface ClientLoadOptions {
  mode?: 'full' | 'submit';
}

/** Reads and validates client.xml; a ConfigError names the file, element and line on failure. */
export async function loadClientConfig(file: string, options: ClientLoadOptions = {}): Promise<ClientConfig> {
  const mode = options.mode ?? 'full';
  const path = resolve(file);
  const doc = await readXmlFile(path, ['config']);
  const warnings: string[] = [];
  const root = new SectionReader(path, doc.root, 'config', (w) => warnings.push(w));
  const identity = await readIdentity(root.section('identity'));
  const directories = await readDirectories(root.section('directory'));
  const extendTaskFactories = readExtendTaskFactories(root.section('extendTaskFactory'));
  const { db, taskRunnerNoDb } = readDb(root.section('db'), warnings);
  const full = mode === 'full';
  const client = root.section('client');
  const businessFactory = full ? client.nonEmpty('businessfactory') : undefined;
  if (businessFactory !== undefined && !isSaneValue(businessFactory)) throw client.error('businessfactory', 'forbidden characters or markup; expected a class name');
  let limits = readLimits(root.section('limit'));
  if (!full) {
    // The submit-only reading takes nothing from `limit` but the block size.
    const defaults = readLimits(new SectionReader(path, undefined, 'config/limit'));
    limits = { ...defaults, blockSize: limits.blockSize };
  }
  if (full && db === null && identity.authentFile === undefined) {
    throw root.section('identity').error('authentfile', 'missing; expected the partner file (authent.xml) since no database is configured');
  }
  const config: ClientConfig = {
    file: path, mode, hostId: identity.hostId, sslHostId: identity.sslHostId, identity, cryptoKeyFile: identity.cryptoKeyFile,
    authentFile: identity.authentFile, clientTaskRunnerNoDb: full ? client.boolean('taskrunnernodb', false) : false, businessFactory,
    // For a client TLS is on unless sslhostid is absent (config.md §4).
    ssl: full && identity.sslHostId !== undefined ? readSsl(root.section('ssl')) : null,
    directories, limits, db, taskRunnerNoDb,
    business: full ? readBusiness(root.section('business')) : [], aliases: readAliases(root.section('aliases')), extendTaskFactories,
    spooledDaemon: full ? readSpooledDaemon(root.section('spooleddaemon'), warnings) : null, warnings,
  };
  // Settings read but not acted on yet (ignored-settings.ts).
  if (full) warnings.push(...(await ignoredClientSettings(config)));
  // The submit-only reading looks at a few elements only: the others are not named then.
  const unused = full ? unusedElementsLine(root) : undefined;
  if (unused !== undefined) warnings.push(unused);
  return config;
}

/** The submit-only reading of a client file (§4.4). */
export function loadSubmitClientConfig(file: string): Promise<ClientConfig> {
  return loadClientConfig(file, { mode: 'submit' });
}

function readSpooledDaemon(sec: SectionReader, warnings: string[]): SpooledDaemonConfig | null {
  if (!sec.present) return null;
  const stopFile = optionalPath(sec, 'stopfile');
  if (stopFile === undefined) {
    warnings.push(`${sec.file}:${sec.lineOf() ?? '?'}: <spooleddaemon> ignored: missing <stopfile>`);
    return null;
  }
  const spooled: SpooledConfig[] = [];
  for (const s of sec.sections('spooled')) {
    const to = s.strings('to').filter((t) => t !== '');
    const rule = s.nonEmpty('rule');
    const statusFile = optionalPath(s, 'statusfile');
    const directories = s.strings('directory').filter((d) => d !== '').map((d) => resolve(d));
    if (to.length === 0 || rule === undefined || statusFile === undefined || directories.length === 0) {
      warnings.push(`${s.file}:${s.lineOf() ?? '?'}: <spooled> skipped: expected <to>, <rule>, <statusfile> and <directory>`);
      continue;
    }
    spooled.push({
      name: s.nonEmpty('name'), to, rule, statusFile, directories, regex: s.nonEmpty('regex'), recursive: s.boolean('recursive', false),
      elapse: s.long('elapse', 1000), submit: s.boolean('submit', true), parallel: s.boolean('parallel', true),
      limitParallel: s.int('limitParallel', 0), info: s.nonEmpty('info') ?? 'noinfo', md5: s.boolean('md5', false), block: s.int('block', 65536),
      noLog: s.boolean('nolog', false), waarpHosts: s.strings('waarp').filter((w) => w !== ''), elapseWaarp: s.long('elapseWaarp', 5000),
      minimalSize: s.long('minimalSize', 0), ignoreAlreadyUsed: s.boolean('ignoreAlreadyUsed', false),
    });
  }
  return { stopFile, logWarn: sec.boolean('logWarn', true), spooled };
}

function writeSpooledDaemon(d: SpooledDaemonConfig | null): XmlOut[] {
  if (d === null) return [];
  return [section('spooleddaemon', [
    ...el('stopfile', d.stopFile), ...el('logWarn', d.logWarn),
    ...d.spooled.map((s) => section('spooled', [
      ...el('name', s.name), ...s.to.flatMap((t) => el('to', t)), ...el('rule', s.rule), ...el('statusfile', s.statusFile),
      ...s.directories.flatMap((x) => el('directory', x)), ...el('regex', s.regex), ...el('recursive', s.recursive), ...el('elapse', s.elapse),
      ...el('submit', s.submit), ...el('parallel', s.parallel), ...el('limitParallel', s.limitParallel), ...el('info', s.info), ...el('md5', s.md5),
      ...el('block', s.block), ...el('nolog', s.noLog), ...s.waarpHosts.flatMap((w) => el('waarp', w)), ...el('elapseWaarp', s.elapseWaarp),
      ...el('minimalSize', s.minimalSize), ...el('ignoreAlreadyUsed', s.ignoreAlreadyUsed),
    ])),
  ])];
}

/** The client.xml document for `config`. */
export function clientConfigToXml(c: ClientConfig): XmlOut {
  const client = [...el('taskrunnernodb', c.clientTaskRunnerNoDb || undefined), ...el('businessfactory', c.businessFactory)];
  return section('config', [
    writeIdentity(c.identity), section('client', client), ...writeSsl(c.ssl), writeDirectories(c.directories), writeLimits(c.limits),
    ...writeDb(c.db, c.taskRunnerNoDb), ...writeBusiness(c.business), ...writeAliases(c.aliases), ...writeExtendTaskFactories(c.extendTaskFactories),
    ...writeSpooledDaemon(c.spooledDaemon),
  ]);
}

/** Writes client.xml atomically (mode 0600: database and keystore passwords). */
export async function writeClientConfig(file: string, config: ClientConfig): Promise<void> {
  await writeXmlFile(file, clientConfigToXml(config), 0o600);
}
