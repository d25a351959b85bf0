// `svc-r66server migrate` (issue 34): one command to take a Java R66 host over (docs/migration.md).
export { defaultSqliteFile, migrateHost, MigrationError, type MigrationOptions, type MigrationReport, type TableReport } from './migrate.js';
export { formatMigrationReport } from './report.js';
