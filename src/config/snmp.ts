// snmpconfig.xml (config.md §9). Bad targets and users are skipped with a warning; the server
// treats a file that fails to load as "SNMP disabled".
import { resolve } from 'node:path';
import type { SnmpConfig, SnmpSecurity, SnmpTarget } from './types.js';
import { SectionReader } from './values.js';
import { readXmlFile } from './xml-read.js';
import { el, section, writeXmlFile, type XmlOut } from './xml-write.js';

const DOMAINS: ReadonlyArray<SnmpTarget['domain']> = ['UdpIpv4', 'UdpIpv6', 'UdpIpv4z', 'UdpIpv6z', 'TcpIpv4', 'TcpIpv6', 'TcpIpv4z', 'TcpIpv6z'];
const AUTH: ReadonlyArray<NonNullable<SnmpSecurity['authProtocol']>> = ['SHA', 'MD5'];
const PRIV: ReadonlyArray<NonNullable<SnmpSecurity['privProtocol']>> = ['P3DES', 'PAES128', 'PAES192', 'PAES256', 'PDES'];
const DEFAULT_LOCAL_ADDRESS = 'udp:0.0.0.0/161';

/** `IP/port` (IPv4, IPv6 or name) with a port 1..65535. */
function isTargetAddress(a: string): boolean {
  const m = /^(.+)\/(\d{1,5})$/.exec(a);
  return m !== null && Number(m[2]) > 0 && Number(m[2]) < 65536;
}

export async function loadSnmpConfig(file: string): Promise<SnmpConfig> {
  const path = resolve(file);
  const doc = await readXmlFile(path, ['snmpconfig']);
  const warnings: string[] = [];
  const root = new SectionReader(path, doc.root, 'snmpconfig', (w) => warnings.push(w));
  const config = root.section('config');
  const local = config.strings('localaddress').filter((a) => /^(udp|tcp):.+\/\d+$/.test(a));
  const nbThread = config.int('nbthread', 4);
  const targets: SnmpTarget[] = [];
  for (const t of root.section('targets').sections('target')) {
    const where = `${path}:${t.lineOf() ?? '?'}`;
    const name = t.nonEmpty('name');
    const domain = t.string('domain') as SnmpTarget['domain'] | undefined;
    const address = t.nonEmpty('address');
    if (name === undefined) { warnings.push(`${where}: <target> skipped: missing <name>`); continue; }
    if (domain === undefined || !DOMAINS.includes(domain)) { warnings.push(`${where}: target ${name} skipped: <domain> must be one of ${DOMAINS.join(', ')} (case-sensitive)`); continue; }
    if (address === undefined || !isTargetAddress(address)) { warnings.push(`${where}: target ${name} skipped: <address> must be IP/port`); continue; }
    const timeout = t.int('timeout', 200);
    const retries = t.int('retries', 1);
    targets.push({ name, domain, address, timeout: timeout <= 100 ? 100 : timeout, retries: retries <= 0 ? 1 : retries, isV2: t.boolean('isv2', true) });
  }
  const securities: SnmpSecurity[] = [];
  for (const s of root.section('securities').sections('security')) {
    const where = `${path}:${s.lineOf() ?? '?'}`;
    const name = s.nonEmpty('securityname');
    if (name === undefined) { warnings.push(`${where}: <security> skipped: missing <securityname>`); continue; }
    const auth = s.nonEmpty('securityauthprotocol');
    const priv = s.nonEmpty('securityprivprotocol');
    if (auth !== undefined && !AUTH.includes(auth as 'SHA')) { warnings.push(`${where}: security ${name} skipped: <securityauthprotocol> must be SHA or MD5`); continue; }
    if (priv !== undefined && !PRIV.includes(priv as 'PDES')) { warnings.push(`${where}: security ${name} skipped: <securityprivprotocol> must be one of ${PRIV.join(', ')}`); continue; }
    securities.push({
      name, authProtocol: auth as SnmpSecurity['authProtocol'], authPassphrase: s.nonEmpty('securityauthpass'),
      privProtocol: priv as SnmpSecurity['privProtocol'], privPassphrase: s.nonEmpty('securityprivpass'),
    });
  }
  return {
    file: path, localAddresses: local.length > 0 ? local : [DEFAULT_LOCAL_ADDRESS], nbThread: nbThread <= 0 ? 4 : nbThread,
    filtered: config.boolean('filtered', false), useTrap: config.boolean('usetrap', true), trapInformLevel: config.int('trapinformlevel', 0),
    targets, securities, warnings,
  };
}

export function snmpConfigToXml(c: SnmpConfig): XmlOut {
  return section('snmpconfig', [
    section('config', [
      ...c.localAddresses.flatMap((a) => el('localaddress', a)), ...el('nbthread', c.nbThread), ...el('filtered', c.filtered),
      ...el('usetrap', c.useTrap), ...el('trapinformlevel', c.trapInformLevel),
    ]),
    section('targets', c.targets.map((t) => section('target', [
      ...el('name', t.name), ...el('domain', t.domain), ...el('address', t.address), ...el('timeout', t.timeout), ...el('retries', t.retries), ...el('isv2', t.isV2),
    ]))),
    section('securities', c.securities.map((s) => section('security', [
      ...el('securityname', s.name), ...el('securityauthprotocol', s.authProtocol), ...el('securityauthpass', s.authPassphrase),
      ...el('securityprivprotocol', s.privProtocol), ...el('securityprivpass', s.privPassphrase),
    ]))),
  ]);
}

/** Writes snmpconfig.xml atomically (mode 0600: SNMPv3 passphrases). */
export async function writeSnmpConfig(file: string, config: SnmpConfig): Promise<void> {
  await writeXmlFile(file, snmpConfigToXml(config), 0o600);
}
