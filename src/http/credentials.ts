/**
 * Secrets shared by both REST generations: HMAC-SHA256 with the `restsigkey` bytes, constant-time
 * comparison, and the partner password check against the stored (DES-encrypted hex) key.
 * Nothing here logs: callers only learn yes or no.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decryptPasswordHex, encryptPasswordHex } from '../config/index.js';
import type { Host } from '../model/host.js';

/** Lower-case hex HMAC-SHA256 of the UTF-8 `message`. */
export function hmacHex(key: Buffer, message: string): string {
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

/** Constant-time equality of two strings (false when lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The partner's clear password, or undefined when it has none or the key does not decrypt. */
export function clearPassword(host: Host, cryptoKey: Buffer): string | undefined {
  if (host.hostKey === null || host.hostKey.length === 0) return undefined;
  try {
    return decryptPasswordHex(cryptoKey, host.hostKey.toString('ascii'));
  } catch {
    return undefined;
  }
}

/** True when `password` encrypts to the partner's stored key (rest-v2.md §5.1). */
export function passwordMatches(host: Host, cryptoKey: Buffer, password: string): boolean {
  if (host.hostKey === null) return false;
  let expected: string;
  try {
    expected = encryptPasswordHex(cryptoKey, password);
  } catch {
    return false;
  }
  return safeEqual(expected.toLowerCase(), host.hostKey.toString('ascii').toLowerCase());
}
