/**
 * TLS material for the R66 TLS port (r66-protocol.md §1.3, config.md §3.4, §10.5).
 *
 * The original reads Java KeyStore files. We read the keystore as PEM (private key + certificate
 * chain, the key optionally encrypted with `keypass`) or PKCS#12 (`keystorepass`), and the
 * truststore as PEM (one or more certificates) or PKCS#12 (`trustkeystorepass`; Node cannot load a
 * certificate-only PKCS#12, so its certificates are taken out with the `openssl` command at
 * start-up); a JKS file is recognised by its magic number and read by ./jks.js. docs/tls.md tells
 * how to convert.
 *
 * Behaviour kept from the original:
 * - with a truststore, its certificates are the only trust anchors; without one, a TLS client
 *   falls back to the default CA store (a self-signed partner is then refused);
 * - client certificates are required only when `trustuseclientauthenticate` is true and a
 *   truststore is configured (no "optional" mode);
 * - no host name verification (the Java client does none);
 * - 10 s handshake timeout.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createSecureContext, type ConnectionOptions, type TlsOptions } from 'node:tls';
import { isJks, readJks } from './jks.js';
import { TlsConfigError } from './tls-error.js';

export { TlsConfigError };

/** The `ssl` section of server.xml / client.xml, paths already resolved. */
export interface TlsSettings {
  keyPath?: string;
  keyStorePass?: string;
  keyPass?: string;
  trustKeyPath?: string;
  trustKeyStorePass?: string;
  trustUseClientAuthenticate?: boolean;
}

export const TLS_HANDSHAKE_TIMEOUT_MS = 10_000;

/** Options ready for `tls.createServer` and `tls.connect`. */
export interface TlsMaterial {
  server: TlsOptions;
  client: ConnectionOptions;
}


interface KeyMaterial {
  key?: string | Buffer;
  cert?: string | Buffer | Array<string | Buffer>;
  pfx?: Buffer;
  passphrase?: string;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const PEM_KEY = /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/;

async function readStore(file: string, what: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new TlsConfigError(`cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

function isPem(data: Buffer): boolean {
  return data.includes('-----BEGIN ');
}

async function loadKeyStore(s: TlsSettings): Promise<KeyMaterial> {
  if (s.keyPath === undefined) return {};
  const data = await readStore(s.keyPath, 'keystore (ssl/keypath)');
  if (isJks(data)) {
    const store = readJks(data, s.keyStorePass ?? '', s.keyPath);
    const entry = store.privateKeys[0];
    if (entry === undefined) throw new TlsConfigError(`the keystore ${s.keyPath} holds no private key entry`);
    return { key: entry.keyPem(s.keyPass ?? s.keyStorePass ?? ''), cert: entry.chainPem };
  }
  if (isPem(data)) {
    const text = data.toString('utf8');
    const key = PEM_KEY.exec(text)?.[0];
    const certs = text.match(PEM_CERT) ?? [];
    if (key === undefined || certs.length === 0) {
      throw new TlsConfigError(`the PEM keystore ${s.keyPath} must hold a private key and its certificate chain`);
    }
    return { key, cert: certs.join('\n'), passphrase: s.keyPass ?? s.keyStorePass };
  }
  return { pfx: data, passphrase: s.keyStorePass ?? s.keyPass };
}

/** A PKCS#12 file is a DER SEQUENCE. */
const DER_SEQUENCE = 0x30;

function runOpenssl(args: string[], password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // The password goes through the environment, never on a command line others can read.
    execFile('openssl', args, { env: { ...process.env, SVC_R66_STORE_PASS: password }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(err, { stderr: String(stderr) }));
      else resolve(String(stdout));
    });
  });
}

/**
 * The certificates of a PKCS#12 truststore, read with `openssl pkcs12 -nokeys` (OpenSSL 3 needs
 * `-legacy` for stores protected the old way, as older keytool versions write them).
 */
async function readPkcs12Certificates(file: string, password: string): Promise<string[]> {
  const base = ['pkcs12', '-in', file, '-nokeys', '-passin', 'env:SVC_R66_STORE_PASS'];
  let lastError = '';
  for (const args of [base, [...base, '-legacy']]) {
    try {
      return (await runOpenssl(args, password)).match(PEM_CERT) ?? [];
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') {
        throw new TlsConfigError(`the truststore ${file} is PKCS#12, which is read with the openssl command, not found here: convert it to PEM (docs/tls.md)`);
      }
      lastError = e.stderr ?? e.message;
      if (/mac verify|invalid password/i.test(lastError)) break;
    }
  }
  const why = /mac verify|invalid password/i.test(lastError) ? 'wrong trustkeystorepass' : (lastError.split('\n').find((l) => l.trim() !== '') ?? 'unreadable').trim();
  throw new TlsConfigError(`cannot read the PKCS#12 truststore ${file}: ${why}`);
}

async function loadTrustStore(s: TlsSettings): Promise<string[] | undefined> {
  if (s.trustKeyPath === undefined) return undefined;
  const data = await readStore(s.trustKeyPath, 'truststore (ssl/trustkeypath)');
  let certs: string[];
  if (isJks(data)) certs = readJks(data, s.trustKeyStorePass ?? '', s.trustKeyPath).trustedCertsPem;
  else if (isPem(data)) certs = data.toString('utf8').match(PEM_CERT) ?? [];
  else if (data[0] === DER_SEQUENCE) certs = await readPkcs12Certificates(s.trustKeyPath, s.trustKeyStorePass ?? '');
  else throw new TlsConfigError(`the truststore ${s.trustKeyPath} is neither JKS, PKCS#12 nor PEM (see docs/tls.md)`);
  if (certs.length === 0) throw new TlsConfigError(`the truststore ${s.trustKeyPath} holds no certificate`);
  return certs;
}

/** Reads the stores once (at start-up) and returns the options for both TLS roles. */
export async function loadTlsMaterial(s: TlsSettings): Promise<TlsMaterial> {
  const key = await loadKeyStore(s);
  const ca = await loadTrustStore(s);
  const requireClientCert = ca !== undefined && s.trustUseClientAuthenticate === true;
  const common = { ...key, ...(ca ? { ca } : {}) };
  const server: TlsOptions = {
    ...common,
    requestCert: requireClientCert,
    rejectUnauthorized: requireClientCert,
    handshakeTimeout: TLS_HANDSHAKE_TIMEOUT_MS,
  };
  try {
    // Fail at start-up, naming the file, rather than at the first handshake.
    createSecureContext(common);
  } catch (err) {
    throw new TlsConfigError(`cannot use the keystore ${s.keyPath ?? ''} / truststore ${s.trustKeyPath ?? ''}: ${(err as Error).message} (check keystorepass/keypass)`);
  }
  const client: ConnectionOptions = {
    ...common,
    rejectUnauthorized: true,
    // The Java client checks the chain, not the name (r66-protocol.md §1.3).
    checkServerIdentity: () => undefined,
  };
  return { server, client };
}
