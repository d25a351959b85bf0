import { loadAuthentFile } from '../../config/authent-file.js';
import { loadRuleDirectory } from '../../config/rule-files.js';
import type { Host } from '../../model/host.js';
import type { Limits } from '../../model/limits.js';
import type { Rule } from '../../model/rule.js';
import { GuidGenerator } from '../guid.js';
import { CURRENT_SCHEMA_VERSION, othersWithVersion } from '../schema-version.js';
import type { Store, TransactionScope } from '../store.js';
import { FileRunnerRepository } from './file-runner.js';
import {
  MemoryHostConfigRepository, MemoryHostRepository, MemoryLimitsRepository, MemoryMultipleMonitorRepository, MemoryRuleRepository,
} from './memory-repositories.js';

/**
 * What the no-database mode needs from a loaded server.xml or client.xml (both config types fit).
 * `hosts`/`rules` given here replace reading `authentFile` / the rule files of `directories.conf`.
 */
export interface NoDatabaseSource {
  hostId: string;
  authentFile: string | undefined;
  identity: { cryptoKey: Buffer };
  directories: { serverHome: string; arch: string; conf: string };
  limits: { globalLimit: number; sessionLimit: number; delayLimit: number; timeoutCon: number };
  hosts?: readonly Host[];
  rules?: readonly Rule[];
}

/** Options of {@link openNoDatabaseStore}. */
export interface NoDatabaseOptions {
  /** Receives remarks of the file loaders (skipped partners or tasks). */
  logger?: (msg: string) => void;
  /** Task types kept in the rule files besides the original's (the host's plug-ins, see RuleLoadOptions). */
  acceptsTaskType?: (type: string) => boolean;
}

/**
 * The store of the no-database mode (database.md §11): partners from the authent file and rules
 * from `*.rule.xml`/`*.rules.xml` of the configuration directory, read once, kept in memory;
 * limits from the XML `limit` section; transfers as one XML file each in the archive directory;
 * ids from the time-based generator. Schema operations are no-ops and `transaction` only runs
 * the function (there is nothing to roll back in files; callers keep each step self-contained).
 */
export async function openNoDatabaseStore(source: NoDatabaseSource, opts: NoDatabaseOptions = {}): Promise<Store> {
  const warn = (m: string) => opts.logger?.(m);
  let hosts = source.hosts;
  if (!hosts && source.authentFile) {
    const loaded = await loadAuthentFile(source.authentFile, source.identity.cryptoKey);
    loaded.warnings.forEach(warn);
    hosts = loaded.hosts;
  }
  const rules = source.rules ?? await loadRuleDirectory(source.directories.conf, {
    serverHome: source.directories.serverHome, defaultTaskDelay: source.limits.timeoutCon, onWarning: warn, acceptsTaskType: opts.acceptsTaskType,
  });
  const l = source.limits;
  const limits: Limits = {
    hostId: source.hostId, readGlobalLimit: l.globalLimit, writeGlobalLimit: l.globalLimit,
    readSessionLimit: l.sessionLimit, writeSessionLimit: l.sessionLimit, delayLimit: l.delayLimit, updatedInfo: 0,
  };
  const runner = new FileRunnerRepository(source.directories.arch);
  const guid = new GuidGenerator();
  const repos = {
    hosts: new MemoryHostRepository(hosts ?? []),
    rules: new MemoryRuleRepository(rules, async (idRule) => (await runner.count({ idRule })) > 0),
    runner,
    hostConfigs: new MemoryHostConfigRepository([{
      hostId: source.hostId, business: '', roles: '', aliases: '', others: othersWithVersion('', CURRENT_SCHEMA_VERSION), updatedInfo: 0,
    }]),
    limits: new MemoryLimitsRepository([limits]),
    multipleMonitors: new MemoryMultipleMonitorRepository(),
  };
  const nextIds = async (n: number): Promise<bigint[]> => Array.from({ length: n }, () => guid.next()).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const scope: TransactionScope = { ...repos, nextTransferId: async () => guid.next(), nextTransferIds: nextIds };
  return {
    dialect: 'none',
    inProcess: true,
    ...repos,
    initSchema: async () => undefined,
    upgradeSchema: async () => ({ from: CURRENT_SCHEMA_VERSION, to: CURRENT_SCHEMA_VERSION, initialised: true }),
    schemaVersion: async () => CURRENT_SCHEMA_VERSION,
    isInitialised: async () => true,
    nextTransferId: async () => guid.next(),
    nextTransferIds: nextIds,
    resetTransferIdSequence: async () => undefined,
    transaction: (fn) => fn(scope),
    close: async () => undefined,
  };
}
