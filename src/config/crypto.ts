// The original's password cryptography (config.md §10): single DES, ECB, PKCS#5 padding, key =
// the raw bytes of the cryptokey file, ciphertext written as lower-case hex. OpenSSL 3 (Node 20)
// refuses `des-ecb` without the legacy provider; triple DES in EDE mode with the key repeated
// three times computes exactly single DES (encrypt-decrypt-encrypt with one key), so we use that.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigError, describeIoError } from './errors.js';
import { writeFileAtomic } from './xml-write.js';

/** Length of a DES key in bytes (56 key bits + 8 parity bits). */
export const CRYPTO_KEY_LENGTH = 8;

function tripled(key: Buffer): Buffer {
  if (key.length < CRYPTO_KEY_LENGTH) throw new ConfigError(`cryptokey too short: ${key.length} bytes, expected ${CRYPTO_KEY_LENGTH}`);
  // Longer files: the DES engine of the original uses the first 8 bytes (config.md §10.1).
  const k = key.subarray(0, CRYPTO_KEY_LENGTH);
  return Buffer.concat([k, k, k]);
}

/** Reads a cryptokey file (raw key bytes). Fewer than 8 bytes or unreadable: ConfigError. */
export async function readCryptoKeyFile(file: string): Promise<Buffer> {
  let key: Buffer;
  try {
    key = await readFile(file);
  } catch (err) {
    throw new ConfigError(`cryptokey file ${describeIoError(err)}`, { file });
  }
  if (key.length < CRYPTO_KEY_LENGTH) {
    throw new ConfigError(`not a DES cryptokey: ${key.length} bytes, expected ${CRYPTO_KEY_LENGTH} raw bytes`, { file });
  }
  return key;
}

/** Writes `key` as a raw key file, atomically, readable by its owner only. */
export async function writeCryptoKeyFile(file: string, key: Buffer): Promise<void> {
  if (key.length < CRYPTO_KEY_LENGTH) throw new ConfigError(`cryptokey too short: ${key.length} bytes, expected ${CRYPTO_KEY_LENGTH}`, { file });
  await writeFileAtomic(file, key, 0o600);
}

/** A new random DES key with odd parity in every byte, as Java's DES key generator makes them. */
export function generateCryptoKey(): Buffer {
  const key = randomBytes(CRYPTO_KEY_LENGTH);
  for (let i = 0; i < key.length; i++) {
    const b = (key[i] ?? 0) & 0xfe;
    let ones = 0;
    for (let bit = 1; bit < 0x100; bit <<= 1) if (b & bit) ones++;
    key[i] = ones % 2 === 0 ? b | 1 : b;
  }
  return key;
}

/** DES-encrypts bytes (or the UTF-8 of a string). */
export function encryptPassword(key: Buffer, clear: string | Buffer): Buffer {
  const cipher = createCipheriv('des-ede3-ecb', tripled(key), null);
  return Buffer.concat([cipher.update(typeof clear === 'string' ? Buffer.from(clear, 'utf8') : clear), cipher.final()]);
}

/** DES-decrypts; a wrong key or corrupted value gives a ConfigError without any secret. */
export function decryptPassword(key: Buffer, encrypted: Buffer): Buffer {
  if (encrypted.length === 0 || encrypted.length % 8 !== 0) {
    throw new ConfigError(`encrypted password has ${encrypted.length} bytes, expected a non-zero multiple of 8`);
  }
  const decipher = createDecipheriv('des-ede3-ecb', tripled(key), null);
  try {
    return Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch {
    throw new ConfigError('cannot decrypt the password: wrong cryptokey or corrupted value');
  }
}

/** Lower-case hex of the encrypted password (the text stored in files and in HOSTS.HOSTKEY). */
export function encryptPasswordHex(key: Buffer, clear: string | Buffer): string {
  return encryptPassword(key, clear).toString('hex');
}

/**
 * Decodes hex of either case (the original only understands lower case; we accept both and
 * always write lower case, compatibility.md).
 */
export function decodeHex(hex: string): Buffer {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) {
    throw new ConfigError(`not an encrypted password: expected an even number of hexadecimal digits (${hex.length} characters given)`);
  }
  return Buffer.from(hex, 'hex');
}

/** Decrypts the hex form to bytes (the UTF-8 of the clear password). */
export function decryptPasswordHexBytes(key: Buffer, hex: string): Buffer {
  return decryptPassword(key, decodeHex(hex));
}

/** Decrypts the hex form to the clear password text. */
export function decryptPasswordHex(key: Buffer, hex: string): string {
  return decryptPasswordHexBytes(key, hex).toString('utf8');
}

/** The encrypted hex text of a `.ggp` file, whitespace trimmed (config.md §10.3). */
export async function readGgpHex(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`password file ${describeIoError(err)}`, { file });
  }
  const hex = text.trim();
  try {
    decodeHex(hex);
  } catch (err) {
    throw err instanceof ConfigError ? err.at({ file }) : err;
  }
  return hex.toLowerCase();
}

/** Reads and decrypts a `.ggp` file to the clear password. */
export async function readGgpFile(file: string, key: Buffer): Promise<string> {
  const hex = await readGgpHex(file);
  try {
    return decryptPasswordHex(key, hex);
  } catch (err) {
    throw err instanceof ConfigError ? err.at({ file }) : err;
  }
}

/** Encrypts `clear` and writes the hex (no newline, like the original tool); returns the hex. */
export async function writeGgpFile(file: string, key: Buffer, clear: string | Buffer): Promise<string> {
  const hex = encryptPasswordHex(key, clear);
  await writeFileAtomic(file, hex, 0o600);
  return hex;
}
