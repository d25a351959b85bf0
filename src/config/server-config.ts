// server.xml (config.md §3): load in the original's order with its fatal checks, and write back.
import { lookup } from 'node:dns/promises';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  optionalPath, readAliases, readBusiness, readDb, readDirectories, readExtendTaskFactories, readIdentity, readLimits, readSsl,
  resolveConfigPath, writeAliases, writeBusiness, writeDb, writeDirectories, writeExtendTaskFactories, writeIdentity, writeLimits, writeSsl,
} from './common-sections.js';
import { decryptPasswordHex, readGgpHex } from './crypto.js';
import { ConfigError, describeIoError } from './errors.js';
import { ignoredServerElements, ignoredServerSettings, unusedElementsLine } from './ignored-settings.js';
import { formatRoleSet, parseRoleSet } from './roles.js';
import { readSecurity, writeSecurity } from './security.js';
import {
  REST_FUNCTIONS, type DirectoryConfig, type IdentityConfig, type NetworkConfig, type PushMonitorConfig, type RestConfig, type RestFunction,
  type RoleEntry, type ServerAdminConfig, type ServerConfig,
} from './types.js';
import { isSaneValue, round10, SectionReader, splitWords } from './values.js';
import { readXmlFile } from './xml-read.js';
import { el, section, writeXmlFile, type XmlOut } from './xml-write.js';

/** Reads and validates server.xml; a ConfigError names the file, element and line on failure. */
export async function loadServerConfig(file: string): Promise<ServerConfig> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['config']);
  const warnings: string[] = [];
  const root = new SectionReader(path, doc.root, 'config', (w) => warnings.push(w));

  const identity = await readIdentity(root.section('identity'));
  const { db, taskRunnerNoDb } = readDb(root.section('db'), warnings);
  const server = await readServerSection(root.section('server'), identity);
  const pushMonitor = readPushMonitor(root.section('pushMonitor'));
  const directories = await readDirectories(root.section('directory'));
  const extendTaskFactories = readExtendTaskFactories(root.section('extendTaskFactory'));
  const limits = readLimits(root.section('limit'));
  if (server.useSsl && identity.sslHostId === undefined) {
    // Trap T3: the original ends up with TLS "on" but no TLS identity; we refuse it plainly.
    throw root.section('server').error('usessl', 'usessl is true but <identity/sslhostid> is missing; expected an sslhostid or usessl false');
  }
  if (!server.useSsl && !server.useNoSsl) throw root.section('server').error('usenossl', 'both usenossl and usessl are false; expected at least one R66 listener');
  const ssl = server.useSsl ? readSsl(root.section('ssl')) : null;
  const network = readNetwork(root.section('network'));
  const rest: RestConfig[] = [];
  for (const sec of root.sections('rest')) {
    const r = await readRest(sec, directories, warnings);
    if (r !== undefined) rest.push(r);
  }
  if (db === null && identity.authentFile === undefined) {
    throw root.section('identity').error('authentfile', 'missing; expected the partner file (authent.xml) since no database is configured');
  }
  const config: ServerConfig = {
    file: path, hostId: identity.hostId, sslHostId: identity.sslHostId, identity, cryptoKeyFile: identity.cryptoKeyFile,
    authentFile: identity.authentFile, server, network, ssl, directories, limits, db, taskRunnerNoDb, rest,
    business: readBusiness(root.section('business')), roles: readRoles(root.section('roles')), aliases: readAliases(root.section('aliases')),
    extendTaskFactories, pushMonitor, warnings, security: readSecurity(root.section('security'), limits.timeoutCon),
  };
  // Settings read but not acted on yet are each reported at start (ignored-settings.ts).
  warnings.push(...(await ignoredServerSettings(config)));
  const unused = unusedElementsLine(root, await ignoredServerElements(config));
  if (unused !== undefined) warnings.push(unused);
  return config;
}

async function readServerSection(sec: SectionReader, identity: IdentityConfig): Promise<ServerAdminConfig> {
  if (!sec.present) throw sec.error(undefined, 'missing section; expected <server> with <serveradmin>, <serverpasswd> and <httpadmin>');
  const adminName = sec.required('serveradmin', 'the administrator login name');
  const passwordFile = optionalPath(sec, 'serverpasswdfile');
  let hex: string;
  let element: string;
  if (passwordFile !== undefined) {
    element = 'serverpasswdfile';
    try {
      hex = await readGgpHex(passwordFile);
    } catch (err) {
      throw err instanceof ConfigError ? sec.error(element, `${err.detail} (${passwordFile})`) : err;
    }
  } else {
    element = 'serverpasswd';
    hex = sec.required('serverpasswd', 'the administrator password encrypted with the cryptokey (hex), or <serverpasswdfile>');
  }
  let adminPassword: string;
  try {
    adminPassword = decryptPasswordHex(identity.cryptoKey, hex);
  } catch (err) {
    throw err instanceof ConfigError ? sec.error(element, err.detail) : err;
  }
  const useLocalExec = sec.boolean('uselocalexec', false);
  const localExecAddress = sec.nonEmpty('lexecaddr') ?? '127.0.0.1';
  if (useLocalExec) {
    await lookup(localExecAddress).catch(() => { throw sec.error('lexecaddr', `cannot resolve "${localExecAddress}"; expected the LocalExec daemon's address`); });
  }
  const httpAdminText = sec.required('httpadmin', 'the directory of the web admin pages');
  let httpAdmin: string;
  try {
    httpAdmin = await realpath(resolveConfigPath(httpAdminText));
    if (!(await stat(httpAdmin)).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    throw sec.error('httpadmin', `${(err as NodeJS.ErrnoException).code !== undefined ? describeIoError(err) : 'not a directory'}: ${httpAdminText}; expected an existing directory`);
  }
  const httpModel = sec.optionalInt('httpmodel') ?? (await stat(join(httpAdmin, 'Listing.html')).then(() => 1, () => 0));
  const adminKeyPath = optionalPath(sec, 'admkeypath');
  const businessFactory = sec.nonEmpty('businessfactory');
  if (businessFactory !== undefined && !isSaneValue(businessFactory)) throw sec.error('businessfactory', 'forbidden characters or markup; expected a class name');
  return {
    adminName, adminPassword, adminPasswordHex: hex.toLowerCase(), adminPasswordFile: passwordFile,
    useNoSsl: sec.boolean('usenossl', true), useSsl: sec.boolean('usessl', false), useHttpCompression: sec.boolean('usehttpcomp', false),
    useLocalExec, localExecAddress, localExecPort: sec.int('lexecport', 9999), httpAdmin, httpModel,
    adminKeyPath,
    adminKeyStorePassword: adminKeyPath === undefined ? sec.nonEmpty('admkeystorepass') : sec.required('admkeystorepass', 'the admin keystore password (required with admkeypath)'),
    adminKeyPassword: adminKeyPath === undefined ? sec.nonEmpty('admkeypass') : sec.required('admkeypass', 'the admin key password (required with admkeypath)'),
    checkAddress: sec.boolean('checkaddress', false), checkClientAddress: sec.boolean('checkclientaddress', false),
    pastLimit: round10(sec.long('pastlimit', 86400000)), minimalDelay: round10(sec.long('minimaldelay', 5000)),
    snmpConfigFile: optionalPath(sec, 'snmpconfig'), multipleMonitors: Math.max(sec.int('multiplemonitors', 1), 1), clusterTakeover: sec.optionalInt('clustertakeover'), businessFactory,
  };
}

/** Address lists are split on `,` only and not trimmed (config.md §3.3). */
function addresses(sec: SectionReader, name: string): string[] {
  const v = sec.string(name);
  return v === undefined || v === '' ? [] : v.split(',');
}

function readNetwork(sec: SectionReader): NetworkConfig {
  return {
    serverPort: sec.port('serverport', 6666), serverAddresses: addresses(sec, 'serveraddresses'),
    serverSslPort: sec.port('serversslport', 6667), serverSslAddresses: addresses(sec, 'serverssladdresses'),
    serverHttpPort: sec.port('serverhttpport', 8066, true), serverHttpAddresses: addresses(sec, 'serverhttpaddresses'),
    serverHttpsPort: sec.port('serverhttpsport', 8067, true), serverHttpsAddresses: addresses(sec, 'serverhttpsaddresses'),
  };
}

function emptyMethods(): Record<RestFunction, number> {
  return Object.fromEntries(REST_FUNCTIONS.map((f) => [f, 0])) as Record<RestFunction, number>;
}

function crudMask(text: string): number {
  const t = text.toUpperCase();
  return (t.includes('C') ? 1 : 0) | (t.includes('R') ? 2 : 0) | (t.includes('U') ? 4 : 0) | (t.includes('D') ? 8 : 0);
}

async function readRest(sec: SectionReader, dirs: DirectoryConfig, warnings: string[]): Promise<RestConfig | undefined> {
  let port = sec.port('restport', -1, true);
  if (!sec.has('restport') && sec.has('serverrestport')) {
    // Trap T2: the original ignores serverrestport; we accept it as an alias (compatibility.md).
    port = sec.port('serverrestport', -1, true);
    warnings.push(`${sec.file}: <rest/serverrestport> is not read by the original; accepted here as <restport>`);
  }
  if (port <= 0) return undefined;
  const methods = emptyMethods();
  let any = false;
  for (const m of sec.sections('restmethod')) {
    const name = m.string('restname') ?? '';
    const crud = m.string('restcrud') ?? '';
    if (name === '' || crud === '') continue;
    const mask = crudMask(crud);
    if (name.toUpperCase() === 'ALL') {
      for (const f of REST_FUNCTIONS) methods[f] = mask;
      any = true;
      break; // Trap T6: ALL ends the reading of this section's restmethod entries.
    }
    for (const word of splitWords(name)) {
      if (!(REST_FUNCTIONS as readonly string[]).includes(word)) throw m.error('restname', `unknown REST function "${word}"; expected ALL or ${REST_FUNCTIONS.join(', ')}`);
      methods[word as RestFunction] = mask;
      any = true;
    }
  }
  if (!any) throw sec.error('restmethod', 'no usable restmethod; expected at least one with <restname> and <restcrud>');
  const signature = sec.boolean('restsignature', true);
  const authenticated = sec.boolean('restauthenticated', false);
  let sigKeyFile: string | undefined;
  let sigKey: Buffer | undefined;
  // The original accepts authentication without a key and then offers Basic only: so do we, with a
  // start-up warning (HMAC and signatures are then refused with a message saying why).
  // `restsignkey` is the seed documentation's spelling (config.md §10.6); the original reads only
  // `restsigkey`. Accepted, with a warning, so a file written after that documentation keeps its key.
  let keyName = sec.nonEmpty('restsigkey');
  if (keyName === undefined && sec.nonEmpty('restsignkey') !== undefined) {
    keyName = sec.nonEmpty('restsignkey');
    warnings.push(`${sec.file}: <rest/restsignkey> is not read by the original; accepted here as <restsigkey>`);
  }
  if ((signature || authenticated) && keyName === undefined) {
    warnings.push(`${sec.path} on port ${port}: no restsigkey; REST accepts Basic authentication only (HMAC and signed requests are refused)`);
  }
  if ((signature || authenticated) && keyName !== undefined) {
    const value = keyName;
    // The original's fallback forgets serverhome; we look in <serverhome><conf> (compatibility.md).
    for (const candidate of [resolveConfigPath(value), join(dirs.conf, value)]) {
      sigKey = await readFile(candidate).catch(() => undefined);
      if (sigKey !== undefined) { sigKeyFile = candidate; break; }
    }
    if (sigKey === undefined || sigKey.length === 0) throw sec.error('restsigkey', `cannot read a non-empty key from ${value} (also tried ${join(dirs.conf, value)})`);
  }
  return {
    port, address: sec.nonEmpty('restaddress'), ssl: sec.boolean('restssl', false), authenticated, signature, sigKeyFile, sigKey,
    timeLimit: sec.long('resttimelimit', -1), methods,
  };
}

function readRoles(sec: SectionReader): RoleEntry[] {
  const out: RoleEntry[] = [];
  for (const r of sec.sections('role')) {
    const hostId = r.nonEmpty('roleid');
    const set = r.string('roleset');
    if (hostId !== undefined && set !== undefined) out.push({ hostId, roles: parseRoleSet(set) });
  }
  return out;
}

function readPushMonitor(sec: SectionReader): PushMonitorConfig | null {
  const url = sec.nonEmpty('url');
  if (url === undefined) return null;
  const str = (name: string): string | undefined => {
    const v = sec.nonEmpty(name);
    if (v !== undefined && !isSaneValue(v)) throw sec.error(name, 'forbidden characters or markup in the value');
    return v;
  };
  str('url');
  const index = str('index');
  const endpoint = str('endpoint');
  if (index !== undefined && endpoint !== undefined) throw sec.error('index', 'both <endpoint> and <index> are given; expected <endpoint> (HTTP) or <index> (Elasticsearch)');
  const username = str('username');
  const password = str('paswd');
  if ((username === undefined) !== (password === undefined)) throw sec.error(username === undefined ? 'paswd' : 'username', 'expected <username> and <paswd> together');
  let delay = sec.int('delay', 1000);
  if (delay < 0) delay = 1000;
  if (delay < 500) delay = 500;
  return {
    kind: index === undefined ? 'rest' : 'elasticsearch', url, delay,
    intervalIncluded: sec.boolean('intervalincluded', true), transformLongAsString: sec.boolean('transformlongasstring', false),
    token: str('token'), apiKey: str('apiKey'),
    endpoint: index === undefined ? endpoint ?? '/' : undefined, keepConnection: sec.boolean('keepconnection', true), basicAuthent: str('basicAuthent'),
    index, prefix: str('prefix'), username, password, compression: sec.boolean('compression', true),
  };
}

// ---------------------------------------------------------------- writing

function writeServerSection(s: ServerAdminConfig): XmlOut {
  return section('server', [
    ...el('serveradmin', s.adminName),
    ...(s.adminPasswordFile !== undefined ? el('serverpasswdfile', s.adminPasswordFile) : el('serverpasswd', s.adminPasswordHex)),
    ...el('usenossl', s.useNoSsl), ...el('usessl', s.useSsl), ...el('usehttpcomp', s.useHttpCompression),
    ...el('uselocalexec', s.useLocalExec), ...el('lexecaddr', s.localExecAddress), ...el('lexecport', s.localExecPort),
    ...el('httpadmin', s.httpAdmin), ...el('httpmodel', s.httpModel),
    ...el('admkeypath', s.adminKeyPath), ...el('admkeystorepass', s.adminKeyStorePassword), ...el('admkeypass', s.adminKeyPassword),
    ...el('checkaddress', s.checkAddress), ...el('checkclientaddress', s.checkClientAddress),
    ...el('pastlimit', s.pastLimit), ...el('minimaldelay', s.minimalDelay), ...el('snmpconfig', s.snmpConfigFile),
    ...el('multiplemonitors', s.multipleMonitors), ...el('clustertakeover', s.clusterTakeover), ...el('businessfactory', s.businessFactory),
  ]);
}

function writeNetwork(n: NetworkConfig): XmlOut {
  const list = (a: string[]) => (a.length === 0 ? undefined : a.join(','));
  return section('network', [
    ...el('serverport', n.serverPort), ...el('serveraddresses', list(n.serverAddresses)),
    ...el('serversslport', n.serverSslPort), ...el('serverssladdresses', list(n.serverSslAddresses)),
    ...el('serverhttpport', n.serverHttpPort), ...el('serverhttpaddresses', list(n.serverHttpAddresses)),
    ...el('serverhttpsport', n.serverHttpsPort), ...el('serverhttpsaddresses', list(n.serverHttpsAddresses)),
  ]);
}

const CRUD_LETTERS: ReadonlyArray<[string, number]> = [['C', 1], ['R', 2], ['U', 4], ['D', 8]];
const crudText = (mask: number) => CRUD_LETTERS.filter(([, b]) => mask & b).map(([l]) => l).join('');

function writeRest(r: RestConfig): XmlOut {
  const masks = REST_FUNCTIONS.map((f) => r.methods[f]);
  const methods: XmlOut[] = masks.every((m) => m === masks[0] && m !== 0)
    ? [section('restmethod', [...el('restname', 'ALL'), ...el('restcrud', crudText(masks[0] ?? 0))])]
    : REST_FUNCTIONS.filter((f) => r.methods[f] !== 0).map((f) => section('restmethod', [...el('restname', f), ...el('restcrud', crudText(r.methods[f]))]));
  return section('rest', [
    ...el('restaddress', r.address), ...el('restport', r.port), ...el('restssl', r.ssl), ...el('restauthenticated', r.authenticated),
    ...el('resttimelimit', r.timeLimit), ...el('restsignature', r.signature), ...el('restsigkey', r.sigKeyFile), ...methods,
  ]);
}

function writePushMonitor(p: PushMonitorConfig | null): XmlOut[] {
  if (p === null) return [];
  const common = [
    ...el('url', p.url), ...el('delay', p.delay), ...el('intervalincluded', p.intervalIncluded), ...el('transformlongasstring', p.transformLongAsString),
    ...el('token', p.token), ...el('apiKey', p.apiKey),
  ];
  const variant = p.kind === 'rest'
    ? [...el('endpoint', p.endpoint), ...el('keepconnection', p.keepConnection), ...el('basicAuthent', p.basicAuthent)]
    : [...el('index', p.index), ...el('prefix', p.prefix), ...el('username', p.username), ...el('paswd', p.password), ...el('compression', p.compression)];
  return [section('pushMonitor', [...common, ...variant])];
}

/** The server.xml document for `config` (every effective value written explicitly). */
export function serverConfigToXml(c: ServerConfig): XmlOut {
  const roles = c.roles.length === 0 ? [] : [section('roles', c.roles.map((r) => section('role', [...el('roleid', r.hostId), ...el('roleset', formatRoleSet(r.roles))])))];
  return section('config', [
    writeIdentity(c.identity), writeServerSection(c.server), writeNetwork(c.network), ...writeSsl(c.ssl), writeDirectories(c.directories),
    writeLimits(c.limits), ...writeDb(c.db, c.taskRunnerNoDb), ...c.rest.map(writeRest), ...writeBusiness(c.business), ...roles,
    ...writeAliases(c.aliases), ...writeExtendTaskFactories(c.extendTaskFactories), ...writePushMonitor(c.pushMonitor),
    ...writeSecurity(c.security, c.limits.timeoutCon),
  ]);
}

/** Writes server.xml atomically (mode 0600: it holds database and keystore passwords). */
export async function writeServerConfig(file: string, config: ServerConfig): Promise<void> {
  await writeXmlFile(file, serverConfigToXml(config), 0o600);
}
