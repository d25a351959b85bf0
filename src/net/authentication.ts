/**
 * Mutual authentication (r66-protocol.md §5-§6): building our Authent packet and checking a
 * received one (request or answer) in the original's order, with the original's refusal texts.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { NO_ADDRESS } from '../model/host.js';
import type { AuthentPacket } from '../protocol/index.js';
import { buildVersionString, parsePartnerVersion, wireKey } from './authent-compat.js';
import { ownHostId, type AuthenticatedPartner, type LocalIdentity, type PartnerDirectory } from './partner.js';

/**
 * Prefix of every refusal text: the Java host wraps the reason in its FTP-style "not logged in"
 * reply (captures: session-b streams 12 and 14).
 */
export const REFUSAL_PREFIX = 'Code: REPLY_530_NOT_LOGGED_IN Mesg: ';

export const REFUSAL = {
  unknownHost: (id: string) => `HostId not allowed: ${id}`,
  mixedSsl: 'HostId not allowed: mixed Ssl',
  badKey: 'Key is not valid for this HostId',
  inactive: 'Host is Inactive therefore connection is refused',
  badAddress: (ip: string) => `Server IP not authenticated: ${ip}`,
} as const;

export interface AuthCheckOptions {
  directory: PartnerDirectory;
  isTls: boolean;
  /** The peer's IP as seen on the socket. */
  remoteIp: string | undefined;
  /** server.xml `checkaddress` (default false). */
  checkAddress?: boolean;
  /** server.xml `checkclientaddress` (default false). */
  checkClientAddress?: boolean;
  /** This host is proxified: never check addresses. */
  ownProxified?: boolean;
}

export type AuthOutcome =
  | { ok: true; partner: AuthenticatedPartner }
  | { ok: false; reason: string; code: ErrorCodeInfo };

function refuse(reason: string): AuthOutcome {
  return { ok: false, reason, code: ErrorCode.BadAuthent };
}

function sameIp(a: string, b: string): boolean {
  const strip = (ip: string): string => (ip.startsWith('::ffff:') ? ip.slice(7) : ip);
  return strip(a) === strip(b);
}

async function addressMatches(address: string, remoteIp: string): Promise<boolean> {
  if (isIP(address)) return sameIp(address, remoteIp);
  try {
    const all = await lookup(address, { all: true });
    return all.some((a) => sameIp(a.address, remoteIp));
  } catch {
    return false;
  }
}

/** Checks a received Authent (§6.3); the first failing check gives the refusal. */
export async function checkAuthent(packet: AuthentPacket, opts: AuthCheckOptions): Promise<AuthOutcome> {
  const entry = await opts.directory.find(packet.hostId);
  if (entry === undefined) return refuse(REFUSAL.unknownHost(packet.hostId));
  const { host } = entry;
  if (host.isSsl !== opts.isTls) return refuse(REFUSAL.mixedSsl);
  if (entry.password !== null) {
    // An entry without key accepts any key, before the active flag is looked at (§6.1).
    if (!host.isActive) return refuse(REFUSAL.inactive);
    const expected = wireKey(entry.password);
    if (packet.key.length !== expected.length || !timingSafeEqual(packet.key, expected)) return refuse(REFUSAL.badKey);
  }
  const caps = parsePartnerVersion(packet.version);
  if (opts.checkAddress && !opts.ownProxified && !host.isProxified && !caps.proxified && opts.remoteIp !== undefined) {
    const mustCheck = !host.isClient || (opts.checkClientAddress === true && host.address !== NO_ADDRESS);
    if (mustCheck && !(await addressMatches(host.address, opts.remoteIp))) return refuse(REFUSAL.badAddress(opts.remoteIp));
  }
  return {
    ok: true,
    partner: { hostId: packet.hostId, host, version: packet.version, supportsReuse: caps.supportsReuse, proxified: caps.proxified },
  };
}

/**
 * Our Authent packet: our host id for this kind of connection, the wire key of our own entry's
 * password, `localId` (ours in a request, the request's echoed in an answer) and our version.
 */
export async function buildAuthent(identity: LocalIdentity, directory: PartnerDirectory, isTls: boolean, localId: number, way: 0 | 1): Promise<AuthentPacket> {
  const hostId = ownHostId(identity, isTls);
  const self = await directory.find(hostId);
  if (self === undefined) throw new Error(`this host's own id ${hostId} is not in the partner table (config.md trap T11)`);
  return {
    kind: 'authent',
    hostId,
    key: wireKey(self.password ?? Buffer.alloc(0)),
    localId,
    way,
    version: buildVersionString(identity, hostId),
  };
}
