/**
 * A self-signed certificate for the administration area of a fresh home (and of tests): an EC
 * P-256 key and its certificate for localhost/127.0.0.1, made by the openssl command and written
 * as one PEM file (key then certificate), mode 0600, which `admkeypath` reads as a PEM key store.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** With `passphrase`, the key is encrypted with it (admkeypass); without, it is written in clear. */
export async function writeSelfSignedPem(file: string, passphrase?: string, commonName = 'localhost', days = 3650): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cert-'));
  try {
    const key = join(dir, 'key.pem');
    const cert = join(dir, 'cert.pem');
    await new Promise<void>((resolve, reject) => {
      const keyArgs = passphrase === undefined ? ['-nodes'] : ['-passout', 'env:SVC_R66_KEY_PASS'];
      // The passphrase goes through the environment, never on a command line others can read.
      execFile('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', ...keyArgs, '-keyout', key, '-out', cert,
        '-days', String(days), '-subj', `/CN=${commonName}`, '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'],
      { env: { ...process.env, SVC_R66_KEY_PASS: passphrase ?? '' } }, (err, _out, stderr) => {
        if (err === null) resolve();
        else reject(new Error((err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'the openssl command is needed to make the administration certificate: install openssl, or set admkeypath to your own certificate'
          : `openssl could not make the administration certificate: ${String(stderr).trim().split('\n')[0]}`));
      });
    });
    await writeFile(file, `${await readFile(key, 'utf8')}${await readFile(cert, 'utf8')}`, { mode: 0o600 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
