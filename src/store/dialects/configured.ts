import { detectDialect, type DetectedDialect } from '../jdbc-url.js';

/** What a configured database is to svc-r66 beside the original (migration, docs/migration.md). */
export interface ConfiguredDatabase {
  /**
   * The Java original's embedded H2 file: svc-r66 cannot open it (parseJdbcUrl puts a SQLite file
   * beside it), so the migration copies its rows into that SQLite file.
   */
  javaEmbeddedFile: boolean;
  /** svc-r66's own embedded SQLite file, which the original never used: nothing to migrate. */
  svcEmbeddedFile: boolean;
}

const SERVER: ConfiguredDatabase = { javaEmbeddedFile: false, svcEmbeddedFile: false };
const CONFIGURED: Readonly<Record<DetectedDialect, ConfiguredDatabase>> = {
  h2: { javaEmbeddedFile: true, svcEmbeddedFile: false },
  sqlite: { javaEmbeddedFile: false, svcEmbeddedFile: true },
  postgresql: SERVER, mysql: SERVER, mariadb: SERVER, oracle: SERVER,
};

/**
 * The database named by a `db` section (`dbdriver`, `dbserver`), recognised the way parseJdbcUrl
 * does. Throws StoreError for a driver it does not know.
 */
export function configuredDatabase(driver: string, url: string): ConfiguredDatabase {
  return CONFIGURED[detectDialect(driver.trim().toLowerCase(), url.trim())];
}
