/**
 * The database tool behind `initdb`, `loadauth`, `loadrule`, `loadconf` (cli.md §4; the original's
 * ServerInitDatabase), in the original's order: configuration -> schema -> extension factories ->
 * upgrade -> sequence -> hostconfig from the configuration -> rules -> partners -> limits ->
 * alias/roles/business files.
 *
 * Unlike the original, every input file is read and validated before the database is touched, the
 * loads run in one transaction, and a SQLite database file this run created is removed again on
 * failure: a failed command leaves the database as it was.
 */
import { readFileSync, rmSync } from 'node:fs';
import type { Logger } from 'pino';
import {
  ConfigError, loadAuthentFile, loadClientConfig, loadLimitFile, loadRuleDirectory, loadServerConfig,
  type ClientConfig, type ServerConfig,
} from '../config/index.js';
import type { Host } from '../model/host.js';
import type { HostConfig } from '../model/host-config.js';
import type { Rule } from '../model/rule.js';
import { MaskedSecretError, restoreMaskedSecrets, SECRET_MASK, TASK_LISTS } from '../model/rule-secrets.js';
import { filesCreatedByOpen, openStore, parseJdbcUrl, StoreError, type Store } from '../store/index.js';
import { hostTaskRegistry, validateRules, type TaskLogger } from '../tasks/index.js';
import { hostConfigFromSettings, limitsRow, mergeHostConfig } from './host-config.js';
import { describe } from './lifecycle.js';

export interface DatabaseToolOptions {
  configFile: string;
  side: 'server' | 'client';
  /** Create missing tables, indexes, sequence and own rows. */
  initdb?: boolean;
  /** Bring the schema up to date. */
  upgradeDb?: boolean;
  ruleDir?: string;
  authFile?: string;
  limitFile?: string;
  aliasFile?: string;
  rolesFile?: string;
  businessFile?: string;
  extendedTaskFactories?: string[];
  /** Text of `-minimalSeq` (non-numeric: reported and ignored, as the original does). */
  minimalSeq?: string;
  log: Logger;
  /** Progress lines (the original prints them on stdout; the wrappers show them on failure). */
  print?: (line: string) => void;
}

/** A failure with the tool's documented exit code (cli.md §4). */
export class DatabaseToolError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 | 3,
  ) {
    super(message);
    this.name = 'DatabaseToolError';
  }
}

/** The extension factory of the original whose task types (S3...) are built in here (config.md §3.12). */
const KNOWN_TASK_FACTORIES = new Set(['org.waarp.openr66.s3.taskfactory.S3TaskFactory']);

/** What the three `-load*` XML files become (cli.md §4): CR, LF and double spaces -> one space. */
function readHostConfigFile(path: string | undefined, print: (l: string) => void): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8').replace(/[\r\n]/g, ' ').replace(/ {2,}/g, ' ').trim();
  } catch (err) {
    // The original treats an unreadable file as an empty value, i.e. ignored.
    print(`${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? describe(err)}): ignored`);
    return undefined;
  }
}

/** The tool's progress output as a task logger (plug-in loading reports there). */
function printLogger(print: (l: string) => void): TaskLogger {
  return { trace: () => undefined, debug: () => undefined, info: print, warn: print, error: print };
}

interface Inputs {
  rules: Rule[];
  hosts: Host[];
  limits: Awaited<ReturnType<typeof loadLimitFile>> | undefined;
  alias: string | undefined;
  roles: string | undefined;
  business: string | undefined;
  minimalSeq: bigint | undefined;
}

async function readInputs(opts: DatabaseToolOptions, config: ServerConfig | ClientConfig, print: (l: string) => void): Promise<Inputs> {
  const fail = (err: unknown): never => {
    throw new DatabaseToolError(describe(err), 1);
  };
  let rules: Rule[] = [];
  if (opts.ruleDir !== undefined) {
    print(`start loading rules from ${opts.ruleDir}`);
    // Task plug-ins first: the types they add are accepted in the rule files.
    const registry = await hostTaskRegistry([...config.extendTaskFactories, ...(opts.extendedTaskFactories ?? [])], config.directories.conf, printLogger(print));
    rules = await loadRuleDirectory(opts.ruleDir, {
      serverHome: config.directories.serverHome,
      defaultTaskDelay: config.limits.timeoutCon,
      onWarning: print,
      acceptsTaskType: (type) => registry.get(type) !== undefined,
    }).catch(fail);
    const checked = validateRules(rules, registry);
    checked.warnings.forEach(print);
    rules = checked.rules;
  }
  let hosts: Host[] = [];
  if (opts.authFile !== undefined) {
    print(`start loading authentications from ${opts.authFile}`);
    const loaded = await loadAuthentFile(opts.authFile, config.identity.cryptoKey).catch(fail);
    hosts = loaded.hosts;
    for (const w of loaded.warnings) print(w);
  }
  let limits: Inputs['limits'];
  if (opts.limitFile !== undefined) {
    print(`start loading limits from ${opts.limitFile}`);
    limits = await loadLimitFile(opts.limitFile).catch(fail);
  }
  let minimalSeq: bigint | undefined;
  if (opts.minimalSeq !== undefined) {
    if (/^-?\d+$/.test(opts.minimalSeq.trim())) minimalSeq = BigInt(opts.minimalSeq.trim());
    else print(`-minimalSeq ${opts.minimalSeq}: not a number, ignored`);
  }
  return {
    rules, hosts, limits, minimalSeq,
    alias: readHostConfigFile(opts.aliasFile, print),
    roles: readHostConfigFile(opts.rolesFile, print),
    business: readHostConfigFile(opts.businessFile, print),
  };
}

async function loadConfig(opts: DatabaseToolOptions): Promise<ServerConfig | ClientConfig> {
  try {
    return opts.side === 'server' ? await loadServerConfig(opts.configFile) : await loadClientConfig(opts.configFile);
  } catch (err) {
    if (err instanceof ConfigError || (err as NodeJS.ErrnoException).code !== undefined) {
      throw new DatabaseToolError(`needs a correct configuration file: ${describe(err)}`, 2);
    }
    throw err;
  }
}

export async function runDatabaseTool(opts: DatabaseToolOptions): Promise<void> {
  const print = opts.print ?? ((): void => undefined);
  const config = await loadConfig(opts);
  if (config.db === null) {
    throw new DatabaseToolError(`needs a correct configuration file: ${config.file}: no database configured (<db> with <dbdriver> and <dbserver>)`, 2);
  }
  for (const name of opts.extendedTaskFactories ?? []) {
    if (!KNOWN_TASK_FACTORIES.has(name)) print(`extended task factory ${name} is unknown: ignored`);
  }
  const inputs = await readInputs(opts, config, print);

  let settings;
  try {
    settings = parseJdbcUrl(config.db.driver, config.db.server, config.db.user, config.db.password);
  } catch (err) {
    throw new DatabaseToolError(`needs a correct configuration file: ${config.file} <db>: ${describe(err)}`, 2);
  }
  const newFiles = filesCreatedByOpen(settings);
  let store: Store | undefined;
  let done = false;
  try {
    store = await openStore(settings, { hostId: config.hostId, logger: (m) => opts.log.warn(m) });
    await applyAll(store, config, opts, inputs, print);
    print('database load done');
    done = true;
  } catch (err) {
    if (err instanceof DatabaseToolError) throw err;
    if (err instanceof StoreError) throw new DatabaseToolError(`cannot update the database: ${err.message}`, 3);
    throw err;
  } finally {
    await store?.close().catch(() => undefined);
    // No half-made database: a SQLite file this run created goes away with the failure.
    if (!done) for (const file of newFiles) rmSync(file, { force: true });
  }
}

async function applyAll(store: Store, config: ServerConfig | ClientConfig, opts: DatabaseToolOptions, inputs: Inputs, print: (l: string) => void): Promise<void> {
  const hostId = config.hostId;
  // initdb echoes its SQL statements like the original (cli.md §4).
  const onStatement = (statement: string): void => print(statement);
  if (opts.initdb) {
    print('creating the database schema');
    await store.initSchema({ hostId, minimalSeq: inputs.minimalSeq, onStatement });
    print('database schema created');
  }
  if (opts.upgradeDb) {
    let result;
    try {
      result = await store.upgradeSchema(hostId, onStatement);
    } catch (err) {
      throw new DatabaseToolError(`database not up to date: ${describe(err)}`, 1);
    }
    if (!result.initialised) throw new DatabaseToolError('database not initialised: its tables do not exist (run initdb)', 1);
    print('database schema is up to date');
  }
  if (!opts.initdb && inputs.minimalSeq !== undefined) await store.resetTransferIdSequence(inputs.minimalSeq);
  if (!opts.initdb && !(await store.isInitialised())) {
    throw new DatabaseToolError('database not initialised: its tables do not exist; run initdb first', 3);
  }

  await store.transaction(async (repos) => {
    const current: HostConfig | undefined = await repos.hostConfigs.get(hostId);
    let row = mergeHostConfig(current, hostConfigFromSettings(config), hostId);
    for (const rule of inputs.rules) await repos.rules.upsert(await withStoredSecrets(rule, repos.rules));
    if (opts.ruleDir !== undefined) print('rules loaded');
    await repos.hosts.upsertMany(inputs.hosts);
    if (opts.authFile !== undefined) print('authentications loaded');
    if (inputs.limits !== undefined) {
      await repos.limits.upsert(limitsRow(inputs.limits, hostId));
      print('limits loaded');
    }
    row = mergeHostConfig(row, { aliases: inputs.alias, roles: inputs.roles, business: inputs.business }, hostId);
    await repos.hostConfigs.upsert(row);
  });
}

/**
 * A rule file exported by a caller without the RULE role carries ******** for its credentials:
 * loading it keeps the stored secrets (decision 0038) and refuses, with nothing written, a mask
 * that no stored value stands behind, so the mask is never stored as a password.
 */
async function withStoredSecrets(rule: Rule, rules: { get(idRule: string): Promise<Rule | undefined> }): Promise<Rule> {
  if (!TASK_LISTS.some((list) => rule[list].some((task) => task.path.includes(SECRET_MASK)))) return rule;
  try {
    return restoreMaskedSecrets(rule, await rules.get(rule.idRule));
  } catch (err) {
    if (err instanceof MaskedSecretError) throw new DatabaseToolError(err.message, 1);
    throw err;
  }
}
