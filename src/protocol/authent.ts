import { createHash, timingSafeEqual } from 'node:crypto';
import { ErrorCode, type ErrorCodeInfo } from '../model/error-code.js';
import { Way } from './constants.js';
import { errorPacket, type ErrorPacket } from './packets/error.js';
import type { AuthentPacket } from './packets/authent.js';
import { parseVersionString, type PartnerCapabilities, type PartnerDefaults } from './version.js';

/** The salt of the wire key (r66-protocol.md §6.1). */
const WIRE_KEY_SALT = Buffer.from('GoldenGate', 'ascii');

/**
 * The 16-byte key sent on the wire for a password: MD5 of 16 x (password bytes + "GoldenGate"),
 * one MD5 context (r66-protocol.md §6.1). Used for Authent and for the admin key of Shutdown and
 * BlockRequest.
 */
export function deriveWireKey(password: Uint8Array | string): Buffer {
  const p = typeof password === 'string' ? Buffer.from(password, 'utf8') : password;
  const md5 = createHash('md5');
  for (let i = 0; i < 16; i++) {
    md5.update(p);
    md5.update(WIRE_KEY_SALT);
  }
  return md5.digest();
}

/** Constant-time check of a received wire key against a password. */
export function wireKeyMatches(received: Uint8Array, password: Uint8Array | string): boolean {
  const expected = deriveWireKey(password);
  return received.length === expected.length && timingSafeEqual(received, expected);
}

/** What the verifier knows of the claimed partner (authent.xml entry / HOSTS row, key decrypted). */
export interface AuthentPartnerEntry {
  hostId: string;
  isSsl: boolean;
  isActive: boolean;
  /** Plain password bytes, or null when the entry has no key (any key is then accepted). */
  password: Uint8Array | null;
}

/** Context of a received Authent. */
export interface AuthentCheckContext {
  /** The connection is TLS. */
  isTls: boolean;
  /** Partner table lookup. */
  lookup: (hostId: string) => AuthentPartnerEntry | undefined;
  /** When set (address checking applies to this entry), the peer IP and the entry's resolved IPs. */
  address?: { peerIp: string; allowedIps: readonly string[] };
  /** Our own digest and separator, for the partner view defaults. */
  defaults?: PartnerDefaults;
}

/** Outcome of checking a received Authent. */
export type AuthentCheckResult =
  | { ok: true; partner: AuthentPartnerEntry; capabilities: PartnerCapabilities; isRequest: boolean }
  | { ok: false; code: ErrorCodeInfo; reason: string };

/** Refusal reasons, word for word as the Java host sends them (r66-protocol.md §6.3). */
export const AuthentRefusal = {
  unknownHost: (hostId: string): string => `HostId not allowed: ${hostId}`,
  mixedSsl: 'HostId not allowed: mixed Ssl',
  badKey: 'Key is not valid for this HostId',
  inactive: 'Host is Inactive therefore connection is refused',
  badAddress: (ip: string): string => `Server IP not authenticated: ${ip}`,
} as const;

/**
 * Checks a received Authent (request or answer) in the Java order (r66-protocol.md §6.3): known
 * host, SSL flag, key (no stored key = accepted, before the active flag), address. Pure: the caller
 * resolves addresses and decrypts keys.
 */
export function checkAuthent(packet: AuthentPacket, ctx: AuthentCheckContext): AuthentCheckResult {
  const refuse = (reason: string): AuthentCheckResult => ({ ok: false, code: ErrorCode.BadAuthent, reason });
  const entry = ctx.lookup(packet.hostId);
  if (!entry) return refuse(AuthentRefusal.unknownHost(packet.hostId));
  if (entry.isSsl !== ctx.isTls) return refuse(AuthentRefusal.mixedSsl);
  if (entry.password !== null) {
    if (!entry.isActive) return refuse(AuthentRefusal.inactive);
    if (!wireKeyMatches(packet.key, entry.password)) return refuse(AuthentRefusal.badKey);
  }
  if (ctx.address && !ctx.address.allowedIps.includes(ctx.address.peerIp)) return refuse(AuthentRefusal.badAddress(ctx.address.peerIp));
  return { ok: true, partner: entry, capabilities: parseVersionString(packet.version, ctx.defaults), isRequest: packet.way === Way.ASK };
}

/**
 * The Error packet a Java host sends when it refuses an authentication: header
 * `Code: REPLY_530_NOT_LOGGED_IN Mesg: <reason>` (captures, session-b stream 12), code `A`, action 3.
 */
export function authentRefusalPacket(reason: string): ErrorPacket {
  return errorPacket(`Code: REPLY_530_NOT_LOGGED_IN Mesg: ${reason}`, ErrorCode.BadAuthent);
}

/** Header of the Error sent when a host cannot serve at all (§6.5), with code `C`. */
export const SERVICE_UNAVAILABLE_MESSAGE = 'Service unavailable';

/**
 * The Authent we send: a request carries our channel id, an answer echoes the request's localId
 * (Java does, r66-protocol.md §6.2).
 */
export function authentPacket(hostId: string, password: Uint8Array | string, version: string, way: number, localId: number): AuthentPacket {
  return { kind: 'authent', hostId, key: deriveWireKey(password), localId, way, version };
}
