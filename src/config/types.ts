// The typed configuration objects produced by the loaders. Paths are absolute (resolved against
// the process working directory, config.md §1.4) unless documented as "virtual". Secrets (clear
// passwords, key bytes) are present where the host needs them: never log these objects whole.
import type { SecurityConfig } from './security.js';

/** `identity` section (config.md §3.1). */
export interface IdentityConfig {
  /** Host id for plain connections; also the owner of every transfer row. */
  hostId: string;
  /** Host id for TLS connections; undefined when absent (TLS then off). */
  sslHostId: string | undefined;
  /** Absolute path of the DES cryptokey file. */
  cryptoKeyFile: string;
  /** The key bytes read from `cryptoKeyFile` (secret). */
  cryptoKey: Buffer;
  /** Absolute path of the partner file (mandatory without database), when present. */
  authentFile: string | undefined;
  /** Message language (`en`/`fr`), default `en`. */
  locale: string;
}

/** The five working directories (config.md §3.5). */
export interface DirectoryConfig {
  /** Canonical absolute instance directory. */
  serverHome: string;
  /** Virtual paths relative to `serverHome`, starting with `/` (what rules store, e.g. `/in`). */
  virtual: { in: string; out: string; arch: string; work: string; conf: string };
  /** Absolute receive directory (`serverHome` + virtual `in`). */
  in: string;
  /** Absolute send directory. */
  out: string;
  /** Absolute archive directory (history exports, no-database transfer files). */
  arch: string;
  /** Absolute directory of files being received. */
  work: string;
  /** Absolute configuration directory (rule files in no-database mode). */
  conf: string;
  /**
   * `directory/readabledirs` (ours): absolute directories besides in/out/work/arch whose files REST,
   * the web pages and the FileWatcher may name to send (src/operations/order-files.ts).
   */
  readable?: readonly string[];
}

/** `limit` section, every value after the original's normalisation (config.md §3.6). */
export interface LimitConfig {
  serverThread: number;
  clientThread: number;
  memoryLimit: number;
  /** Bytes/s per connection, 0 = unlimited. */
  sessionLimit: number;
  /** Bytes/s for the whole host, 0 = unlimited. */
  globalLimit: number;
  delayLimit: number;
  runLimit: number;
  delayCommand: number;
  delayRetry: number;
  /** Network timeout; also the default task delay. */
  timeoutCon: number;
  blockSize: number;
  gapRestart: number;
  useNio: boolean;
  useCpuLimit: boolean;
  useJdkCpuLimit: boolean;
  cpuLimit: number;
  /** 0 = no limit (values below 100 become 0). */
  connLimit: number;
  lowCpuLimit: number;
  highCpuLimit: number;
  percentDecrease: number;
  delayThrottle: number;
  limitLowBandwidth: number;
  /** 0=CRC32 1=ADLER32 2=MD5 3=MD2 4=SHA-1 5=SHA-256 6=SHA-384 7=SHA-512. */
  digest: number;
  /** Thrift port, 0 = disabled. */
  useThrift: number;
  checkVersion: boolean;
  globalDigest: boolean;
  localDigest: boolean;
  compression: boolean;
}

/** SQL dialect selected from `dbdriver` by substring. */
export type DbDialect = 'oracle' | 'mysql' | 'postgresql' | 'h2' | 'mariadb' | 'sqlite';

/** `db` section as written in the file (config.md §3.7); the store module builds connections. */
export interface DbConfig {
  /** `dbdriver` text as in the file (e.g. `postgresql`). */
  driver: string;
  /** Dialect selected from `driver` (oracle, mysql, postgresql, h2, mariadb tested in this order; sqlite is ours). */
  dialect: DbDialect | undefined;
  /** JDBC URL (`dbserver`). */
  server: string;
  user: string;
  /** Clear text (never encrypted in the file). */
  password: string;
  /** `autoUpgrade` (or deprecated `dbcheck`, which wins); default false. */
  autoUpgrade: boolean;
}

/** `ssl` section (config.md §3.4). */
export interface SslConfig {
  /** JKS keystore with this host's key; undefined = no certificate of our own. */
  keyPath: string | undefined;
  keyStorePassword: string | undefined;
  keyPassword: string | undefined;
  /** JKS truststore of accepted partners; undefined = system CAs as client, no client auth. */
  trustKeyPath: string | undefined;
  trustKeyStorePassword: string | undefined;
  /** Mutual TLS required (only meaningful with a truststore). */
  trustUseClientAuthenticate: boolean;
}

/** REST functions named in `restmethod/restname` (config.md §3.8). */
export const REST_FUNCTIONS = ['DbHostAuth', 'DbRule', 'DbTaskRunner', 'DbHostConfiguration', 'DbConfiguration', 'Bandwidth', 'Business', 'Config', 'Information', 'Log', 'Server', 'Control'] as const;
export type RestFunction = (typeof REST_FUNCTIONS)[number];

/** CRUD bits of a REST function. */
export const RestCrud = { CREATE: 0x01, READ: 0x02, UPDATE: 0x04, DELETE: 0x08 } as const;

/** One `rest` section = one REST listener (only sections with `restport` > 0 are kept). */
export interface RestConfig {
  port: number;
  /** Bind address; undefined = all interfaces. */
  address: string | undefined;
  ssl: boolean;
  authenticated: boolean;
  signature: boolean;
  /** Absolute path of the HMAC key file actually read, when signature or authentication is on. */
  sigKeyFile: string | undefined;
  /** The HMAC-SHA256 key (secret), when read. */
  sigKey: Buffer | undefined;
  /** Max request timestamp age in ms; -1 = no check. */
  timeLimit: number;
  /** CRUD mask per function (functions not enabled have mask 0). */
  methods: Record<RestFunction, number>;
}

/** Role bits (config.md §3.10). */
export const Role = {
  NOACCESS: 0, READONLY: 1, TRANSFER: 2, RULE: 4, HOST: 8, LIMIT: 16, SYSTEM: 32, LOGCONTROL: 64, UNUSED: -128,
  PARTNER: 3, CONFIGADMIN: 15, FULLADMIN: 127,
} as const;

/** One `roles/role` entry. */
export interface RoleEntry {
  hostId: string;
  /** Combined role bits. */
  roles: number;
}

/** One `aliases/alias` entry. */
export interface AliasEntry {
  realId: string;
  aliasIds: string[];
}

/** `server` section administration settings (config.md §3.2). */
export interface ServerAdminConfig {
  /** `serveradmin` login. */
  adminName: string;
  /** Clear administrator password (secret). */
  adminPassword: string;
  /** Encrypted hex as written in `serverpasswd` (or read from the file), lower case. */
  adminPasswordHex: string;
  /** Absolute `.ggp` path when `serverpasswdfile` was used. */
  adminPasswordFile: string | undefined;
  useNoSsl: boolean;
  useSsl: boolean;
  useHttpCompression: boolean;
  useLocalExec: boolean;
  localExecAddress: string;
  localExecPort: number;
  /** Canonical absolute web admin directory. */
  httpAdmin: string;
  /** 0 = classic, 1 = responsive. */
  httpModel: number;
  adminKeyPath: string | undefined;
  adminKeyStorePassword: string | undefined;
  adminKeyPassword: string | undefined;
  checkAddress: boolean;
  checkClientAddress: boolean;
  pastLimit: number;
  minimalDelay: number;
  /** Absolute snmpconfig.xml path; load it with loadSnmpConfig (failure = SNMP off). */
  snmpConfigFile: string | undefined;
  multipleMonitors: number;
  /** svc only (`clustertakeover`, ms): a cluster member silent this long is dead and its transfers go to the others (docs/cluster.md; default 20000). */
  clusterTakeover?: number | undefined;
  businessFactory: string | undefined;
}

/** `network` section (config.md §3.3). Empty address lists mean all interfaces. */
export interface NetworkConfig {
  serverPort: number;
  serverAddresses: string[];
  serverSslPort: number;
  serverSslAddresses: string[];
  /** HTTP monitoring port; <= 0 disabled. */
  serverHttpPort: number;
  serverHttpAddresses: string[];
  /** HTTPS admin port; <= 0 disabled. */
  serverHttpsPort: number;
  serverHttpsAddresses: string[];
}

/** `pushMonitor` section (config.md §3.13); null in ServerConfig when `url` is absent. */
export interface PushMonitorConfig {
  /** `elasticsearch` when `index` is present, otherwise `rest` (HTTP POST JSON). */
  kind: 'rest' | 'elasticsearch';
  url: string;
  delay: number;
  intervalIncluded: boolean;
  transformLongAsString: boolean;
  token: string | undefined;
  apiKey: string | undefined;
  /** REST variant: path appended to url (default `/`). */
  endpoint: string | undefined;
  keepConnection: boolean;
  basicAuthent: string | undefined;
  /** Elasticsearch variant. */
  index: string | undefined;
  prefix: string | undefined;
  username: string | undefined;
  password: string | undefined;
  compression: boolean;
}

/** Everything server.xml says (config.md §3). */
export interface ServerConfig {
  /** Absolute path of the file read. */
  file: string;
  hostId: string;
  sslHostId: string | undefined;
  identity: IdentityConfig;
  /** Absolute cryptokey path (same as identity.cryptoKeyFile). */
  cryptoKeyFile: string;
  /** Absolute partner-file path when `identity/authentfile` is present. */
  authentFile: string | undefined;
  server: ServerAdminConfig;
  network: NetworkConfig;
  /** Present only when `server/usessl` is true. */
  ssl: SslConfig | null;
  directories: DirectoryConfig;
  limits: LimitConfig;
  /** null = no database (section absent, empty `dbdriver` or `taskrunnernodb`). */
  db: DbConfig | null;
  /** `db/taskrunnernodb`. */
  taskRunnerNoDb: boolean;
  rest: RestConfig[];
  /** Host ids allowed to send business requests. */
  business: string[];
  roles: RoleEntry[];
  aliases: AliasEntry[];
  /** `extendTaskFactory/extendedtaskfactories` entries. */
  extendTaskFactories: string[];
  pushMonitor: PushMonitorConfig | null;
  /** Non-fatal remarks found while loading (shown at start-up). */
  warnings: string[];
  /** `security` (ours: limits against hostile input); absent in configurations built in code (securityOf()). */
  security?: SecurityConfig;
}

/** One `spooleddaemon/spooled` watcher (config.md §4.2). */
export interface SpooledConfig {
  name: string | undefined;
  to: string[];
  rule: string;
  statusFile: string;
  directories: string[];
  regex: string | undefined;
  recursive: boolean;
  elapse: number;
  submit: boolean;
  parallel: boolean;
  limitParallel: number;
  info: string;
  md5: boolean;
  block: number;
  noLog: boolean;
  waarpHosts: string[];
  elapseWaarp: number;
  minimalSize: number;
  ignoreAlreadyUsed: boolean;
}

/** `spooleddaemon` section. */
export interface SpooledDaemonConfig {
  stopFile: string;
  logWarn: boolean;
  spooled: SpooledConfig[];
}

/** Everything client.xml says (config.md §4). */
export interface ClientConfig {
  file: string;
  /** `full` = client.xml, `submit` = the reduced asend/masend reading (§4.4). */
  mode: 'full' | 'submit';
  hostId: string;
  sslHostId: string | undefined;
  identity: IdentityConfig;
  cryptoKeyFile: string;
  authentFile: string | undefined;
  /** `client/taskrunnernodb`: keep transfers as XML files when there is no database. */
  clientTaskRunnerNoDb: boolean;
  businessFactory: string | undefined;
  /** Present when `sslhostid` is set (full mode only). */
  ssl: SslConfig | null;
  directories: DirectoryConfig;
  limits: LimitConfig;
  db: DbConfig | null;
  taskRunnerNoDb: boolean;
  business: string[];
  aliases: AliasEntry[];
  extendTaskFactories: string[];
  spooledDaemon: SpooledDaemonConfig | null;
  warnings: string[];
}

/** snmpconfig.xml target (config.md §9.2). */
export interface SnmpTarget {
  name: string;
  domain: 'UdpIpv4' | 'UdpIpv6' | 'UdpIpv4z' | 'UdpIpv6z' | 'TcpIpv4' | 'TcpIpv6' | 'TcpIpv4z' | 'TcpIpv6z';
  address: string;
  timeout: number;
  retries: number;
  isV2: boolean;
}

/** snmpconfig.xml SNMPv3 user (config.md §9.3). */
export interface SnmpSecurity {
  name: string;
  authProtocol: 'SHA' | 'MD5' | undefined;
  authPassphrase: string | undefined;
  privProtocol: 'P3DES' | 'PAES128' | 'PAES192' | 'PAES256' | 'PDES' | undefined;
  privPassphrase: string | undefined;
}

/** snmpconfig.xml (config.md §9). */
export interface SnmpConfig {
  file: string;
  localAddresses: string[];
  nbThread: number;
  filtered: boolean;
  useTrap: boolean;
  trapInformLevel: number;
  targets: SnmpTarget[];
  securities: SnmpSecurity[];
  warnings: string[];
}

/** Bandwidth-limit file for `initdb -limit` (config.md §4.5): the six limits it may carry. */
export interface LimitFileConfig extends Pick<LimitConfig, 'sessionLimit' | 'globalLimit' | 'delayLimit' | 'runLimit' | 'delayCommand' | 'delayRetry'> {
  file: string;
  /** `identity/hostid` when present. */
  hostId: string | undefined;
}

/** What we take from a logback file (config.md §7). */
export interface LogbackConfig {
  file: string;
  /** `root` level upper case (TRACE, DEBUG, INFO, WARN, ERROR, OFF), undefined when not found. */
  level: string | undefined;
  /** The `file` of the first file appender, when plainly written. */
  logFile: string | undefined;
}
