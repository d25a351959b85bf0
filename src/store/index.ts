// Public API of the database module (design.md §2: src/store). Other modules import from here only.
export { isDatabaseUnavailable, StoreError } from './errors.js';
export { parseJdbcUrl, redactUrl } from './jdbc-url.js';
export type { DbConnectionSettings, DialectName, ServerSettings, SqliteSettings } from './jdbc-url.js';
export { openStore } from './store.js';
export { filesCreatedByOpen } from './dialects/index.js';
export { configuredDatabase, type ConfiguredDatabase } from './dialects/configured.js';
export { onDatabaseFault } from './dialects/sqlite-guard.js';
export type { OpenStoreOptions, Store, TransactionScope } from './store.js';
export type { InitSchemaOptions, UpgradeResult } from './schema.js';
export { CURRENT_SCHEMA_VERSION, compareVersions, versionFromOthers, othersWithVersion } from './schema-version.js';
export type {
  HostConfigRepository, HostFilter, HostRepository, LimitsRepository, MultipleMonitorRepository, Repositories,
  MoveTarget, RuleFilter, RuleRepository, RunnerRepository, TransferFilter, TransferListOptions, TransferStateChange, TransferTally, WrittenChange,
} from './repository-types.js';
export { formatLocalTimestamp, parseLocalTimestamp } from './codec.js';
export { openNoDatabaseStore } from './nodb/nodb-store.js';
export type { NoDatabaseOptions, NoDatabaseSource } from './nodb/nodb-store.js';
export { GuidGenerator } from './guid.js';
export { formatRunnerTimestamp, parseRunnerTimestamp, runnersDocument, runnersFromXml, runnerToXml } from './runners-document.js';
