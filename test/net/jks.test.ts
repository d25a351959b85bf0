import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isJks, readJks } from '../../src/net/jks.js';
import { TlsConfigError } from '../../src/net/tls-error.js';

// Fixtures written by the JDK's keytool (-storetype JKS): a key entry (store password
// "storepass", key password "keypass1") and a truststore with its certificate ("trustpass").
const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

describe('Java KeyStore reader', () => {
  it('reads the private key and chain of a keytool keystore', () => {
    const data = fixture('hosta-key.jks');
    expect(isJks(data)).toBe(true);
    const store = readJks(data, 'storepass', 'hosta-key.jks');
    expect(store.privateKeys).toHaveLength(1);
    const entry = store.privateKeys[0]!;
    expect(entry.alias).toBe('hosta');
    expect(entry.chainPem).toHaveLength(1);
    const key = createPrivateKey(entry.keyPem('keypass1'));
    const cert = new X509Certificate(entry.chainPem[0]!);
    expect(cert.subject).toBe('CN=hosta');
    expect(cert.checkPrivateKey(key)).toBe(true);
  });

  it('reads the trusted certificates of a truststore', () => {
    const store = readJks(fixture('trust.jks'), 'trustpass', 'trust.jks');
    expect(store.privateKeys).toHaveLength(0);
    expect(store.trustedCertsPem).toHaveLength(1);
    expect(new X509Certificate(store.trustedCertsPem[0]!).fingerprint256).toBe(new X509Certificate(fixture('hosta.pem')).fingerprint256);
  });

  it('refuses a wrong store password, a wrong key password and a truncated file with a message naming the file', () => {
    expect(() => readJks(fixture('trust.jks'), 'nope', 'trust.jks')).toThrow(/wrong password for the Java keystore trust.jks/);
    const store = readJks(fixture('hosta-key.jks'), 'storepass', 'hosta-key.jks');
    expect(() => store.privateKeys[0]!.keyPem('nope')).toThrow(/wrong key password/);
    expect(() => readJks(fixture('trust.jks').subarray(0, 100), 'trustpass', 'cut.jks')).toThrow(TlsConfigError);
    expect(isJks(Buffer.from('-----BEGIN'))).toBe(false);
  });
});
