// authent.xml, the partner list (config.md §5): entries become model Hosts whose hostKey is the
// ASCII of the lower-case hex of the encrypted password (database.md §4.1). Faulty entries are
// skipped with a warning, as the original does; only an unreadable file is fatal.
import { resolve } from 'node:path';
import { NO_ADDRESS, type Host } from '../model/host.js';
import { resolveConfigPath } from './common-sections.js';
import { decryptPasswordHexBytes, encryptPasswordHex, readGgpHex } from './crypto.js';
import { ConfigError } from './errors.js';
import { checkRange, CONFIG_RANGES } from './ranges.js';
import { SectionReader } from './values.js';
import { streamXmlFile } from './xml-read.js';
import { el, section, writeXmlFile, type XmlOut } from './xml-write.js';

/** Reads an authent.xml file; `cryptoKey` checks (and normalises) every partner password. */
export async function loadAuthentFile(file: string, cryptoKey: Buffer): Promise<{ hosts: Host[]; warnings: string[] }> {
  const path = resolve(file);
  // Entry by entry: a partner file of 100,000 entries never becomes one tree in memory.
  const { children } = await streamXmlFile(path, ['authent']);
  const hosts: Host[] = [];
  const warnings: string[] = [];
  const warn = (w: string): number => warnings.push(w);
  for (const element of children) {
    if (element.name !== 'entry') continue;
    const entry = new SectionReader(path, element, 'authent/entry', warn);
    const where = `${path}:${entry.lineOf() ?? '?'}`;
    const hostId = entry.nonEmpty('hostid');
    if (hostId === undefined) { warnings.push(`${where}: <entry> skipped: empty <hostid>`); continue; }
    let address = entry.nonEmpty('address');
    if (address === undefined) { warnings.push(`${where}: entry ${hostId} skipped: missing <address>`); continue; }
    // Out of range (70000, 1e23) stops the load naming the element; missing or text skips the entry.
    const portCheck = checkRange(entry.string('port') ?? '', CONFIG_RANGES['entry/port']);
    if (!portCheck.ok && !portCheck.notNumber) throw entry.error('port', portCheck.message);
    if (!portCheck.ok) { warnings.push(`${where}: entry ${hostId} skipped: <port> missing or not an integer`); continue; }
    const port = Number(portCheck.value);
    let isClient = entry.boolean('isclient', false);
    if (port < 0) { isClient = true; address = NO_ADDRESS; }
    let hostKey: Buffer | null;
    try {
      hostKey = await entryKey(entry, cryptoKey);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      warnings.push(`${where}: entry ${hostId} skipped: ${err.detail}`);
      continue;
    }
    hosts.push({
      hostId, address, port, isSsl: entry.boolean('isssl', false), hostKey, adminRole: entry.boolean('admin', false), isClient,
      isActive: entry.boolean('isactive', true), isProxified: entry.boolean('isproxified', false), updatedInfo: 0,
    });
  }
  return { hosts, warnings };
}

/** `keyfile` wins over `key`; the hex is decrypted to prove it fits the cryptokey, then re-encrypted. */
async function entryKey(entry: SectionReader, cryptoKey: Buffer): Promise<Buffer | null> {
  const keyFile = entry.nonEmpty('keyfile');
  let hex: string | undefined;
  if (keyFile !== undefined) {
    const p = resolveConfigPath(keyFile);
    hex = await readGgpHex(p).catch((err: unknown) => { throw err instanceof ConfigError ? new ConfigError(`<keyfile> ${p}: ${err.detail}`) : err; });
  } else {
    hex = entry.nonEmpty('key');
  }
  if (hex === undefined) return null;
  let clear: Buffer;
  try {
    clear = decryptPasswordHexBytes(cryptoKey, hex);
  } catch (err) {
    throw err instanceof ConfigError ? new ConfigError(`<${keyFile !== undefined ? 'keyfile' : 'key'}>: ${err.detail}`) : err;
  }
  // Encrypting the same clear text again gives the same bytes (ECB, canonical padding), so the
  // lower-case hex is the result; only a clear text that is not UTF-8 changes on the way.
  const text = clear.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(clear)) return Buffer.from(hex.toLowerCase(), 'ascii');
  return Buffer.from(encryptPasswordHex(cryptoKey, text), 'ascii');
}

/** The export layout of the original (config-export): children in its order, booleans true/false. */
export function authentToXml(hosts: readonly Host[]): XmlOut {
  return section('authent', hosts.map((h) => section('entry', [
    ...el('hostid', h.hostId), ...el('key', h.hostKey === null ? undefined : h.hostKey.toString('ascii')), ...el('admin', h.adminRole),
    ...el('address', h.address), ...el('port', h.port), ...el('isssl', h.isSsl), ...el('isclient', h.isClient),
    ...el('isactive', h.isActive), ...el('isproxified', h.isProxified),
  ])));
}

/** Writes an authent.xml atomically (mode 0600: it carries encrypted passwords). */
export async function writeAuthentFile(file: string, hosts: readonly Host[]): Promise<void> {
  await writeXmlFile(file, authentToXml(hosts), 0o600);
}
