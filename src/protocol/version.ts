import { DEFAULT_DIGEST, digestFromWireName, type DigestAlgorithm } from '../model/digest.js';
import { ANNOUNCED_R66_VERSION } from '../model/product.js';
import { jsonString, parseJsonObject, type JsonObject } from './json.js';
import { ProtocolError } from './errors.js';

/**
 * The version/capability string of Authent packets (r66-protocol.md §5):
 * `<protocolVersion>.<JSON object>`.
 */

/** The protocol version every 3.x host announces (`VERSION`). */
export const PROTOCOL_VERSION = '3.1.0';
/** The version a Java host assumes when an Authent carries no version string. */
export const NO_VERSION_DEFAULT = '2.4.12';

/** What we announce (r66-protocol.md §5.4). */
export interface OwnCapabilities {
  /** The host id we authenticate with (the SSL host id on TLS). */
  hostId: string;
  /** Our `globaldigest` setting. */
  finalHash: boolean;
  /** Our configured digest. */
  digest: DigestAlgorithm;
  proxified: boolean;
  /** Our block-compression setting. */
  compression: boolean;
}

/**
 * The string a Java 3.6.2 host sends, with our values: keys in Java's order, `VERSION` 3.1.0,
 * `SEPARATOR` `;` (mandatory: a Java host crashes on an old VERSION without it) and `R66VERSION`
 * ANNOUNCED_R66_VERSION (>= 3.6.1, so we must accept authentication reuse).
 */
export function buildVersionString(own: OwnCapabilities): string {
  return (
    `${PROTOCOL_VERSION}.{"HOSTID":${jsonString(own.hostId)},"VERSION":"${PROTOCOL_VERSION}","FILESIZE":true,` +
    `"FINALHASH":${own.finalHash},"DIGESTALGO":${jsonString(own.digest.wireName)},"PROXIFIED":${own.proxified},` +
    `"SEPARATOR":";","R66VERSION":"${ANNOUNCED_R66_VERSION}","COMPRESSION":${own.compression}}`
  );
}

/** A partner's announced capabilities, as a Java host builds its view of it (§5.2). */
export interface PartnerCapabilities {
  /** Protocol version (`3.1.0` for all 3.x hosts). */
  version: string;
  /** `HOSTID` when announced. */
  hostId: string | null;
  fileSize: boolean;
  /** The partner sends a global hash at EndTransfer. */
  finalHash: boolean;
  /** Its digest (ours when it announced none or an unknown name). */
  digest: DigestAlgorithm;
  proxified: boolean;
  /** Separator for legacy Request fields. */
  separator: string;
  /** Software version (`3.6.2`, maybe with a suffix such as `-jre11`). */
  r66Version: string;
  compression: boolean;
  /** VERSION >= 2.4.17: JSON Requests and JsonCommands. */
  usesJson: boolean;
  /** R66VERSION >= 3.6.1: the partner may skip Authent on later channels of a connection. */
  authenticationReuse: boolean;
  /** The whole JSON object as received (unknown keys kept), or empty. */
  raw: JsonObject;
}

/** Defaults we apply where the partner's JSON is silent: our own digest and separator. */
export interface PartnerDefaults {
  digest?: DigestAlgorithm;
  separator?: string;
}

function parts(v: string): [number, number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-.*)?$/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** True when version `v` >= `min` (numeric major.minor.patch; a `-suffix` is ignored; malformed -> false). */
export function versionAtLeast(v: string, min: string): boolean {
  const a = parts(v);
  const b = parts(min);
  if (!a || !b) return false;
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) > (b[i] as number);
  return true;
}

function defaultR66Version(version: string): string {
  for (const t of ['3.1.0', '3.0.4', '2.4.17']) if (versionAtLeast(version, t)) return t;
  return '2.4.12';
}

/**
 * Parses a partner's version string (null = none: Java assumes 2.4.12). Never throws: a JSON part
 * that does not parse is ignored (the defaults of the version apply).
 */
export function parseVersionString(text: string | null, own: PartnerDefaults = {}): PartnerCapabilities {
  let version = NO_VERSION_DEFAULT;
  let raw: JsonObject = {};
  if (text !== null) {
    const brace = text.indexOf('{');
    if (brace > 1) {
      version = text.slice(0, brace - 1);
      try {
        raw = parseJsonObject(text.slice(brace));
      } catch (err) {
        if (!(err instanceof ProtocolError)) throw err;
      }
    } else {
      version = text;
    }
  }
  const from = <T>(key: string, ok: (v: unknown) => v is T, dflt: T): T => (ok(raw[key]) ? (raw[key] as T) : dflt);
  const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
  const isStr = (v: unknown): v is string => typeof v === 'string';
  const atLeast2412 = versionAtLeast(version, '2.4.12');
  const ownDigest = own.digest ?? DEFAULT_DIGEST;
  const announcedDigest = from('DIGESTALGO', isStr, '');
  const separator = from('SEPARATOR', isStr, versionAtLeast(version, '2.4.13') ? own.separator ?? ';' : ' ');
  const r66Version = from('R66VERSION', isStr, defaultR66Version(version));
  return {
    version,
    hostId: from<string | null>('HOSTID', (v): v is string => isStr(v), null),
    fileSize: from('FILESIZE', isBool, atLeast2412),
    finalHash: from('FINALHASH', isBool, atLeast2412),
    digest: digestFromWireName(announcedDigest) ?? ownDigest,
    proxified: from('PROXIFIED', isBool, false),
    separator: separator.length === 0 ? own.separator ?? ';' : separator,
    r66Version,
    compression: from('COMPRESSION', isBool, false),
    usesJson: versionAtLeast(version, '2.4.17'),
    authenticationReuse: versionAtLeast(r66Version, '3.6.1'),
    raw,
  };
}

/** Request encoding to use towards this partner (packets §8). */
export function requestEncodingFor(partner: PartnerCapabilities): 'json' | 'legacy' {
  return partner.usesJson ? 'json' : 'legacy';
}

/** True when the legacy change notification may carry the third field (fileInformation), §5.3. */
export function allowsFileInfoInChange(partner: PartnerCapabilities): boolean {
  return versionAtLeast(partner.version, '3.0.4');
}

/** The marker in a transfer's fileInformation that asks for block compression (r66-protocol.md §11). */
export const COMPRESS_MARKER = '#COMPRESS#';

/**
 * Block compression is used iff we allow it, the partner announced COMPRESSION=true and the
 * transfer's fileInformation contains `#COMPRESS#`; both sides evaluate the same inputs.
 */
export function blockCompressionActive(ownAllowed: boolean, partner: PartnerCapabilities, fileInformation: string): boolean {
  return ownAllowed && partner.compression && fileInformation.includes(COMPRESS_MARKER);
}
