/**
 * Reader for Java KeyStore (JKS) files, the format of the original's `keypath` and `trustkeypath`
 * (config.md §10.5), so an installation's stores work unchanged.
 *
 * Layout: magic 0xFEEDFEED, int32 version (1 or 2), int32 entry count, entries, then a SHA-1
 * integrity digest over (password as UTF-16BE, "Mighty Aphrodite", every preceding byte).
 * Entry: int32 tag (1 private key, 2 trusted certificate), modified-UTF-8 alias, int64 date, then
 * for a key the protected PKCS#8 key and its certificate chain, for a trusted certificate one
 * certificate; version 2 writes the certificate type before each certificate.
 * Private keys use Sun's key protector: salt(20) || key XOR keystream || SHA-1 check(20), the
 * keystream being successive SHA-1(password UTF-16BE || previous block) starting from the salt.
 */
import { createHash, createPrivateKey, timingSafeEqual } from 'node:crypto';
import { TlsConfigError } from './tls-error.js';

const JKS_MAGIC = 0xfeedfeed;
const KEY_PROTECTOR_OID = Buffer.from('2b060104012a021101 01'.replace(/ /g, ''), 'hex'); // 1.3.6.1.4.1.42.2.17.1.1

export interface JksPrivateKey {
  alias: string;
  /** The chain, leaf first, as PEM certificates. */
  chainPem: string[];
  /** Decrypts the key with its password (keypass) and returns it as PKCS#8 PEM. */
  keyPem(password: string): string;
}

export interface JksStore {
  privateKeys: JksPrivateKey[];
  trustedCertsPem: string[];
}

/** True when the bytes start with the JKS magic number. */
export function isJks(data: Buffer): boolean {
  return data.length >= 4 && data.readUInt32BE(0) === JKS_MAGIC;
}

function passwordBytes(password: string): Buffer {
  const out = Buffer.alloc(password.length * 2);
  for (let i = 0; i < password.length; i++) out.writeUInt16BE(password.charCodeAt(i), i * 2);
  return out;
}

function toPem(der: Buffer, label: string): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer, readonly file: string) {}
  need(n: number): void {
    if (this.pos + n > this.buf.length) throw new TlsConfigError(`the Java keystore ${this.file} is truncated`);
  }
  u16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  bytes(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }
  utf(): string {
    // Java's modified UTF-8 equals UTF-8 for the characters aliases and "X.509" use.
    return this.bytes(this.u16()).toString('utf8');
  }
}

/** Content of one DER element at `pos`: [tag, content, next position]. */
function derElement(buf: Buffer, pos: number): [number, Buffer, number] {
  const tag = buf[pos] ?? -1;
  let len = buf[pos + 1] ?? 0;
  let p = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (buf[p + i] ?? 0);
    p += n;
  }
  if (p + len > buf.length) throw new Error('bad DER length');
  return [tag, buf.subarray(p, p + len), p + len];
}

/** Sun key protector decryption of an EncryptedPrivateKeyInfo; returns the PKCS#8 DER. */
function recoverKey(encoded: Buffer, password: string, file: string, alias: string): Buffer {
  let data: Buffer;
  try {
    const [, seq] = derElement(encoded, 0);
    const [, algSeq, next] = derElement(seq, 0);
    const [, oid] = derElement(algSeq, 0);
    if (!oid.equals(KEY_PROTECTOR_OID)) throw new Error('not protected with the JKS key protector');
    [, data] = derElement(seq, next);
  } catch (err) {
    throw new TlsConfigError(`the key "${alias}" of the Java keystore ${file} cannot be read: ${(err as Error).message}`);
  }
  const pwd = passwordBytes(password);
  const salt = data.subarray(0, 20);
  const enc = data.subarray(20, data.length - 20);
  const check = data.subarray(data.length - 20);
  const plain = Buffer.alloc(enc.length);
  let block: Buffer = salt;
  for (let off = 0; off < enc.length; off += 20) {
    block = createHash('sha1').update(pwd).update(block).digest();
    for (let i = 0; i < 20 && off + i < enc.length; i++) plain[off + i] = (enc[off + i] as number) ^ (block[i] as number);
  }
  const expected = createHash('sha1').update(pwd).update(plain).digest();
  if (!timingSafeEqual(expected, check)) throw new TlsConfigError(`wrong key password (ssl/keypass) for the key "${alias}" of the Java keystore ${file}`);
  return plain;
}

/** Parses a JKS file and checks its integrity with `storePassword`. */
export function readJks(data: Buffer, storePassword: string, file: string): JksStore {
  const r = new Reader(data, file);
  if (r.u32() !== JKS_MAGIC) throw new TlsConfigError(`${file} is not a Java keystore`);
  const version = r.u32();
  if (version !== 1 && version !== 2) throw new TlsConfigError(`the Java keystore ${file} has unknown version ${version}`);
  const count = r.u32();
  const store: JksStore = { privateKeys: [], trustedCertsPem: [] };
  const readCert = (): string => {
    if (version === 2) {
      const type = r.utf();
      if (type !== 'X.509') throw new TlsConfigError(`the Java keystore ${file} holds a ${type} certificate (X.509 expected)`);
    }
    return toPem(r.bytes(r.u32()), 'CERTIFICATE');
  };
  for (let i = 0; i < count; i++) {
    const tag = r.u32();
    const alias = r.utf();
    r.bytes(8); // creation date
    if (tag === 1) {
      const protectedKey = Buffer.from(r.bytes(r.u32()));
      const chainPem: string[] = [];
      const n = r.u32();
      for (let c = 0; c < n; c++) chainPem.push(readCert());
      store.privateKeys.push({
        alias,
        chainPem,
        keyPem: (password) => {
          const der = recoverKey(protectedKey, password, file, alias);
          return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }).toString();
        },
      });
    } else if (tag === 2) {
      store.trustedCertsPem.push(readCert());
    } else {
      throw new TlsConfigError(`the Java keystore ${file} holds an entry of unknown kind ${tag}`);
    }
  }
  const body = data.subarray(0, r.pos);
  const digest = r.bytes(20);
  const expected = createHash('sha1').update(passwordBytes(storePassword)).update('Mighty Aphrodite', 'utf8').update(body).digest();
  if (!timingSafeEqual(expected, digest)) throw new TlsConfigError(`wrong password for the Java keystore ${file} (or the file is damaged)`);
  return store;
}
