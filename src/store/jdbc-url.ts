import { homedir } from 'node:os';
import { dialectOf } from '../config/common-sections.js';
import { StoreError } from './errors.js';

/** The SQL dialects the store speaks. `mariadb` and `mysql` share a driver but not the id mechanism. */
export type DialectName = 'sqlite' | 'postgresql' | 'mysql' | 'mariadb';

/** Connection settings for the embedded SQLite database. */
export interface SqliteSettings {
  dialect: 'sqlite';
  /** Database file path, or `:memory:`. */
  filename: string;
  /** What the configuration said, safe to print (no password). */
  displayUrl: string;
  /** Warnings to log once at open (e.g. an H2 configuration mapped to SQLite). */
  warnings: string[];
  /**
   * An H2 configuration's PATH (`jdbc:h2:PATH`): this SQLite file stands in for the Java original's
   * H2 database there. openStore refuses to start an empty one beside an H2 file that exists.
   */
  javaH2Base?: string;
}

/** Connection settings for a PostgreSQL, MariaDB or MySQL server. */
export interface ServerSettings {
  dialect: 'postgresql' | 'mysql' | 'mariadb';
  host: string;
  port: number;
  database: string;
  user?: string;
  password?: string;
  /** True when the URL asks for TLS (`ssl=true`, `sslmode=require`, `useSSL=true`...). */
  ssl: boolean;
  /** The `currentSchema` URL parameter: PostgreSQL puts it first in `search_path`; the others have no such parameter. */
  schema?: string;
  /** Pool size (database.md §1.3: 10 by default, at least 2). */
  maxConnections: number;
  /** What the configuration said, safe to print (no password). */
  displayUrl: string;
  warnings: string[];
}

/** Everything needed to open a store; produced by {@link parseJdbcUrl}. */
export type DbConnectionSettings = SqliteSettings | ServerSettings;

/** The password of `settings` (a server's; the embedded database has none): masked in messages. */
export function passwordOf(settings: DbConnectionSettings): string | undefined {
  return 'password' in settings ? settings.password : undefined;
}

const DEFAULT_PORTS = { postgresql: 5432, mysql: 3306, mariadb: 3306 } as const;
const DEFAULT_MAX_CONNECTIONS = 10;

/**
 * Translates the `db` section of the original's configuration (`dbdriver`, `dbserver`, `dbuser`,
 * `dbpasswd`) into driver settings (database.md §1.3, config.md §3.7).
 *
 * The dialect comes from the URL scheme (`jdbc:<dialect>:`), falling back to the substring rules
 * of `dbdriver` (oracle, mysql, postgresql, h2, mariadb, then our `sqlite`). Plain
 * `postgres://`, `mysql://`, `mariadb://` URLs are accepted too. `dbdriver` `sqlite` takes
 * `jdbc:sqlite:PATH` or a plain path. An H2 URL becomes a SQLite file beside the H2 path
 * (`PATH.sqlite`) with a warning, since no Node driver reads H2 files. Explicit `user`/`password`
 * win over the URL's own. Throws {@link StoreError} for an unknown driver or an unusable URL.
 */
export function parseJdbcUrl(driver: string, url: string, user?: string, password?: string): DbConnectionSettings {
  const trimmed = url.trim();
  const dialect = detectDialect(driver.trim().toLowerCase(), trimmed);
  const credentials = { user: nonEmpty(user), password: nonEmpty(password) };
  switch (dialect) {
    case 'sqlite':
      return sqliteSettings(trimmed);
    case 'h2':
      return h2Settings(trimmed);
    case 'oracle':
      throw new StoreError(`database ${redactUrl(trimmed)}: Oracle is not supported by svc-r66; use PostgreSQL, MariaDB/MySQL or SQLite`);
    default:
      return serverSettings(dialect, trimmed, credentials);
  }
}

/** A dialect a configuration may name: those the store speaks, and the original's H2 and Oracle. */
export type DetectedDialect = DialectName | 'h2' | 'oracle';

/** The dialect of a configured database: by URL scheme, else by the `dbdriver` substring rule. */
export function detectDialect(driver: string, url: string): DetectedDialect {
  const scheme = /^jdbc:([a-z0-9]+):/i.exec(url)?.[1]?.toLowerCase() ?? /^([a-z0-9]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  const byScheme = scheme === undefined ? undefined : SCHEMES[scheme];
  if (byScheme) return byScheme;
  const byDriver = dialectOf(driver);
  if (byDriver) return byDriver;
  if (!driver) throw new StoreError(`database ${redactUrl(url)}: no dbdriver given and the URL does not name a dialect (expected jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql:, jdbc:sqlite: or jdbc:h2:)`);
  throw new StoreError(`unknown dbdriver "${driver}": expected one of sqlite, postgresql, mariadb, mysql, h2`);
}

const SCHEMES: Readonly<Record<string, DetectedDialect>> = {
  postgresql: 'postgresql', postgres: 'postgresql', mysql: 'mysql', mariadb: 'mariadb',
  sqlite: 'sqlite', h2: 'h2', oracle: 'oracle',
};

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
}

function sqliteSettings(url: string): SqliteSettings {
  const path = expandHome(url.replace(/^jdbc:sqlite:/i, '').replace(/^file:/i, ''));
  if (!path) throw new StoreError('database "": an SQLite database needs a file path (dbserver jdbc:sqlite:PATH or a plain path)');
  return { dialect: 'sqlite', filename: path, displayUrl: url, warnings: [] };
}

function h2Settings(url: string): SqliteSettings {
  // jdbc:h2:[file:]PATH[;OPTION=...]; mem: databases are process-local, tcp:/ssl: need an H2 server.
  const body = (url.replace(/^jdbc:h2:/i, '').split(';')[0] ?? '').trim();
  if (/^(tcp|ssl):/i.test(body)) {
    throw new StoreError(`database ${url}: an H2 server (${body.split(':')[0]}:) cannot be reached from svc-r66; migrate to PostgreSQL, MariaDB or SQLite`);
  }
  if (/^mem:/i.test(body)) {
    return { dialect: 'sqlite', filename: ':memory:', displayUrl: url, warnings: [`H2 in-memory database ${url} replaced by an in-memory SQLite database`] };
  }
  const path = expandHome(body.replace(/^file:/i, ''));
  if (!path) throw new StoreError(`database ${url}: the H2 URL names no file`);
  const filename = `${path}.sqlite`;
  return {
    dialect: 'sqlite', filename, displayUrl: url, javaH2Base: path,
    warnings: [`H2 database ${url} cannot be read by svc-r66: using the SQLite database ${filename} instead (a Java host's H2 database is taken over with svc-r66server migrate, docs/migration.md)`],
  };
}

function serverSettings(dialect: 'postgresql' | 'mysql' | 'mariadb', url: string, explicit: { user?: string; password?: string }): ServerSettings {
  // Drop "jdbc:" and sub-protocols such as jdbc:mariadb:replication:// or jdbc:mysql:loadbalance://.
  const rest = url.replace(/^jdbc:/i, '').replace(/^[a-z0-9]+:(?:[a-z]+:)?(?=\/\/)/i, '');
  const shortPg = /^postgresql:([^/].*)?$/i.exec(url.replace(/^jdbc:/i, ''));
  let parsed: URL;
  try {
    // jdbc:postgresql:DB and jdbc:postgresql:/ mean localhost (PostgreSQL JDBC short forms).
    parsed = new URL(shortPg ? `x://localhost/${shortPg[1] ?? ''}` : `x:${rest}`);
  } catch {
    throw new StoreError(`database ${redactUrl(url)}: not a valid ${dialect} URL (expected jdbc:${dialect}://HOST[:PORT]/DATABASE[?params])`);
  }
  const host = parsed.hostname.split(',')[0]?.replace(/^\[|\]$/g, '') ?? '';
  if (!host) throw new StoreError(`database ${redactUrl(url)}: the URL names no host`);
  const params = new Map<string, string>();
  for (const [k, v] of parsed.searchParams) params.set(k.toLowerCase(), v);
  const port = parsed.port ? Number(parsed.port) : DEFAULT_PORTS[dialect];
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  const warnings: string[] = [];
  if (parsed.hostname.includes(',')) warnings.push(`database ${redactUrl(url)}: several hosts given, only ${host} is used`);
  const user = explicit.user ?? nonEmpty(decodeURIComponent(parsed.username)) ?? params.get('user');
  const password = explicit.password ?? nonEmpty(decodeURIComponent(parsed.password)) ?? params.get('password');
  const ssl = isTrue(params.get('ssl')) || isTrue(params.get('usessl')) || isTrue(params.get('usesslconnection'))
    || ['require', 'verify-ca', 'verify-full'].includes(params.get('sslmode')?.toLowerCase() ?? '')
    || ['required', 'verify_ca', 'verify_identity'].includes(params.get('sslmode')?.toLowerCase() ?? '');
  const settings: ServerSettings = {
    dialect, host, port, database, ssl,
    maxConnections: DEFAULT_MAX_CONNECTIONS, displayUrl: redactUrl(url), warnings,
  };
  if (user !== undefined) settings.user = user;
  if (password !== undefined) settings.password = password;
  const schema = params.get('currentschema');
  if (schema) settings.schema = schema;
  return settings;
}

function isTrue(v: string | undefined): boolean {
  return v !== undefined && (v === '' || v.toLowerCase() === 'true' || v === '1');
}

/** `url` with any password (user-info or `password=` parameter) replaced by `***`. */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/\/[^/@:?]*:)[^/@?]*@/, '$1***@')
    .replace(/([?&;]password=)[^&;]*/gi, '$1***');
}
