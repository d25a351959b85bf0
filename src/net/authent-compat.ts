/**
 * Wire key and version string, until the protocol module exports its own (r66-protocol.md §5, §6.1).
 */
import { createHash } from 'node:crypto';
import type { LocalIdentity } from './partner.js';

/** MD5 of 16 x (password || "GoldenGate"). */
export function wireKey(password: Buffer): Buffer {
  const md5 = createHash('md5');
  for (let i = 0; i < 16; i++) md5.update(password).update('GoldenGate', 'ascii');
  return md5.digest();
}

/** `3.1.0.{json}` with our values, keys in the Java order (§5.4). */
export function buildVersionString(identity: LocalIdentity, hostId: string): string {
  const json = {
    HOSTID: hostId,
    VERSION: '3.1.0',
    FILESIZE: true,
    FINALHASH: identity.globalDigest,
    DIGESTALGO: identity.digestName,
    PROXIFIED: identity.proxified,
    SEPARATOR: ';',
    R66VERSION: '3.6.2',
    COMPRESSION: identity.compression,
  };
  return `3.1.0.${JSON.stringify(json)}`;
}

function versionAtLeast(v: string, min: [number, number, number]): boolean {
  const parts = v.split('.');
  if (parts.length < 3) return false;
  const nums = [parts[0], parts[1], (parts[2] ?? '').split('-')[0]].map((p) => Number(p));
  if (nums.some((n) => !Number.isInteger(n))) return false;
  for (let i = 0; i < 3; i++) {
    if ((nums[i] as number) !== min[i]) return (nums[i] as number) > (min[i] as number);
  }
  return true;
}

/** The two capabilities the connection layer uses. */
export function parsePartnerVersion(version: string | null): { supportsReuse: boolean; proxified: boolean } {
  if (version === null) return { supportsReuse: false, proxified: false };
  const brace = version.indexOf('{');
  // Without R66VERSION in the JSON the default is at most 3.1.0 (§5.2): no reuse.
  let r66 = '3.1.0';
  let proxified = false;
  if (brace > 1) {
    try {
      const json = JSON.parse(version.slice(brace)) as Record<string, unknown>;
      if (typeof json.R66VERSION === 'string') r66 = json.R66VERSION;
      proxified = json.PROXIFIED === true;
    } catch {
      // Malformed JSON: keep the defaults from the version prefix.
    }
  }
  return { supportsReuse: versionAtLeast(r66, [3, 6, 1]), proxified };
}
