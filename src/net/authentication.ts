/**
 * Mutual authentication (r66-protocol.md §5-§6) on top of the protocol's pure checks: this module
 * does the I/O they leave to the caller (partner lookup, address resolution) and builds our own
 * Authent packet from the local identity.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ErrorCodeInfo } from '../model/error-code.js';
import { NO_ADDRESS, type Host } from '../model/host.js';
import {
  authentPacket,
  buildVersionString,
  checkAuthent as checkAuthentPacket,
  type AuthentPacket,
  type AuthentPartnerEntry,
} from '../protocol/index.js';
import { ownHostId, type AuthenticatedPartner, type LocalIdentity, type PartnerDirectory, type PartnerEntry } from './partner.js';

export interface AuthCheckOptions {
  directory: PartnerDirectory;
  identity: LocalIdentity;
  isTls: boolean;
  /** The peer's IP as seen on the socket. */
  remoteIp: string | undefined;
  /** server.xml `checkaddress` (default false). */
  checkAddress?: boolean;
  /** server.xml `checkclientaddress` (default false). */
  checkClientAddress?: boolean;
}

export type AuthOutcome =
  | { ok: true; partner: AuthenticatedPartner }
  | { ok: false; reason: string; code: ErrorCodeInfo };

function plainIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

async function resolveAll(address: string): Promise<string[]> {
  if (isIP(address)) return [plainIp(address)];
  try {
    return (await lookup(address, { all: true })).map((a) => plainIp(a.address));
  } catch {
    return [];
  }
}

/**
 * Whether §6.3 step 4 applies: `checkaddress` on, nobody proxified, and the entry is a server (or a
 * client with a real address when `checkclientaddress` is on).
 */
function addressCheckApplies(host: Host, opts: AuthCheckOptions, peerProxified: boolean): boolean {
  if (!opts.checkAddress || opts.identity.proxified || host.isProxified || peerProxified) return false;
  return !host.isClient || (opts.checkClientAddress === true && host.address !== NO_ADDRESS);
}

function peerAnnouncesProxified(version: string | null): boolean {
  return version !== null && /"PROXIFIED"\s*:\s*true/.test(version);
}

/** Checks a received Authent (request or answer) in the original's order (§6.3). */
export async function checkAuthent(packet: AuthentPacket, opts: AuthCheckOptions): Promise<AuthOutcome> {
  const entry: PartnerEntry | undefined = await opts.directory.find(packet.hostId);
  let address: { peerIp: string; allowedIps: string[] } | undefined;
  if (entry && opts.remoteIp !== undefined && addressCheckApplies(entry.host, opts, peerAnnouncesProxified(packet.version))) {
    address = { peerIp: plainIp(opts.remoteIp), allowedIps: await resolveAll(entry.host.address) };
  }
  const view: AuthentPartnerEntry | undefined = entry && { hostId: entry.host.hostId, isSsl: entry.host.isSsl, isActive: entry.host.isActive, password: entry.password };
  const result = checkAuthentPacket(packet, {
    isTls: opts.isTls,
    lookup: (id) => (id === packet.hostId ? view : undefined),
    address,
    defaults: { digest: opts.identity.digest },
  });
  if (!result.ok) return { ok: false, reason: result.reason, code: result.code };
  return {
    ok: true,
    partner: { hostId: packet.hostId, host: (entry as PartnerEntry).host, version: packet.version, capabilities: result.capabilities },
  };
}

/**
 * Our Authent packet: our host id for this kind of connection, the wire key of our own entry's
 * password (the original authenticates with its own partner-table entry), `localId` (ours in a
 * request, the request's echoed in an answer) and our version string.
 */
export async function buildAuthent(identity: LocalIdentity, directory: PartnerDirectory, isTls: boolean, localId: number, way: 0 | 1): Promise<AuthentPacket> {
  const hostId = ownHostId(identity, isTls);
  const self = await directory.find(hostId);
  if (self === undefined) throw new Error(`this host's own id ${hostId} is not in the partner table (config.md trap T11)`);
  const version = buildVersionString({ hostId, finalHash: identity.globalDigest, digest: identity.digest, proxified: identity.proxified, compression: identity.compression });
  return authentPacket(hostId, self.password ?? Buffer.alloc(0), version, way, localId);
}
