import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendMessage } from '../../src/client/message.js';
import { ErrorCode } from '../../src/model/error-code.js';
import { loadTlsMaterial, TlsConfigError, type TlsSettings } from '../../src/net/tls.js';
import type { PartnerEntry } from '../../src/net/partner.js';
import { hostEntry, makeHost, type TestHost } from './harness.js';

// Throwaway self-signed certificates made with the openssl CLI (as .ci/run installs it).
const dir = mkdtempSync(path.join(tmpdir(), 'svc-tls-'));
const file = (n: string): string => path.join(dir, n);
function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' });
}
function selfSigned(name: string): void {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file(`${name}.key`), '-out', file(`${name}.crt`), '-days', '2', '-subj', `/CN=${name}`);
  execFileSync('sh', ['-c', `cat ${file(`${name}.key`)} ${file(`${name}.crt`)} > ${file(`${name}.pem`)}`]);
  openssl('pkcs12', '-export', '-inkey', file(`${name}.key`), '-in', file(`${name}.crt`), '-out', file(`${name}.p12`), '-passout', 'pass:p12pass');
}
const fixtures = (n: string): string => new URL(`./fixtures/${n}`, import.meta.url).pathname;

describe('TLS listener and connector', () => {
  let b: TestHost;
  const hosts: TestHost[] = [];
  let bPort = 0;

  const partners = (over: Partial<Record<'hosta-ssl', boolean>> = {}): PartnerEntry[] => [
    { host: hostEntry('hosta-ssl', 0, { isSsl: over['hosta-ssl'] ?? true }), password: Buffer.from('pa') },
    { host: hostEntry('hostb-ssl', bPort, { isSsl: true }), password: Buffer.from('pb') },
  ];

  async function client(settings: TlsSettings, over: Partial<Record<'hosta-ssl', boolean>> = {}): Promise<TestHost> {
    const h = await makeHost('hosta', partners(over), { tls: await loadTlsMaterial(settings), sslHostId: 'hosta-ssl' });
    hosts.push(h);
    return h;
  }

  beforeAll(async () => {
    selfSigned('hosta');
    selfSigned('hostb');
    selfSigned('intruder');
    execFileSync('sh', ['-c', `cat ${file('hosta.crt')} > ${file('trust-b.pem')}; cat ${file('hostb.crt')} > ${file('trust-a.pem')}`]);
    // hostb: PEM keystore, requires client certificates from its truststore.
    const tls = await loadTlsMaterial({ keyPath: file('hostb.pem'), trustKeyPath: file('trust-b.pem'), trustUseClientAuthenticate: true });
    b = await makeHost('hostb', [], { listen: true, tls, sslHostId: 'hostb-ssl' });
    bPort = b.listener!.port;
    for (const e of partners()) b.directory.set(e);
  });
  afterAll(async () => {
    for (const h of hosts) await h.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exchanges a message with mutual TLS (PKCS#12 client keystore, PEM truststore) using the SSL host ids', async () => {
    const a = await client({ keyPath: file('hosta.p12'), keyStorePass: 'p12pass', trustKeyPath: file('trust-a.pem') });
    expect((await sendMessage(a.pool, 'hostb-ssl', 'over tls')).answer).toBe('TestPacket: MSG:over tls:101');
  });

  it('refuses a client without certificate when client authentication is required', async () => {
    const a = await client({ trustKeyPath: file('trust-a.pem') });
    await expect(sendMessage(a.pool, 'hostb-ssl', 'x')).rejects.toMatchObject({ code: expect.objectContaining({ char: expect.stringMatching(/[CD]/) }) });
  });

  it('refuses a client whose certificate is not in the truststore', async () => {
    const a = await client({ keyPath: file('intruder.pem'), trustKeyPath: file('trust-a.pem') });
    await expect(sendMessage(a.pool, 'hostb-ssl', 'x')).rejects.toMatchObject({ code: expect.objectContaining({ char: expect.stringMatching(/[CD]/) }) });
  });

  it('refuses a server certificate the client does not trust (no host name check, chain check only)', async () => {
    const a = await client({ keyPath: file('hosta.pem'), trustKeyPath: file(`intruder.crt`) });
    await expect(sendMessage(a.pool, 'hostb-ssl', 'x')).rejects.toMatchObject({ code: ErrorCode.ConnectionImpossible });
  });

  it('refuses an entry whose isssl does not match the connection ("mixed Ssl")', async () => {
    b.directory.set({ host: hostEntry('hosta-ssl', 0, { isSsl: false }), password: Buffer.from('pa') });
    b.ctx.blacklist.disable();
    try {
      const a = await client({ keyPath: file('hosta.pem'), trustKeyPath: file('trust-a.pem') });
      await expect(sendMessage(a.pool, 'hostb-ssl', 'x')).rejects.toMatchObject({ message: 'Code: REPLY_530_NOT_LOGGED_IN Mesg: HostId not allowed: mixed Ssl', code: ErrorCode.BadAuthent });
    } finally {
      b.directory.set({ host: hostEntry('hosta-ssl', 0, { isSsl: true }), password: Buffer.from('pa') });
    }
  });

  it('reads Java KeyStore files made by keytool as keystore and truststore', async () => {
    // A server keyed with the JKS fixture, trusted by a client through the JKS truststore.
    const jksServer = await makeHost('hostj', [], {
      listen: true,
      sslHostId: 'hostj-ssl',
      tls: await loadTlsMaterial({ keyPath: fixtures('hosta-key.jks'), keyStorePass: 'storepass', keyPass: 'keypass1' }),
    });
    hosts.push(jksServer);
    const entries: PartnerEntry[] = [
      { host: hostEntry('hosta-ssl', 0, { isSsl: true }), password: null },
      { host: hostEntry('hostj-ssl', jksServer.listener!.port, { isSsl: true }), password: null },
    ];
    for (const e of entries) jksServer.directory.set(e);
    const a = await makeHost('hosta', entries, { sslHostId: 'hosta-ssl', tls: await loadTlsMaterial({ trustKeyPath: fixtures('trust.jks'), trustKeyStorePass: 'trustpass' }) });
    hosts.push(a);
    expect((await sendMessage(a.pool, 'hostj-ssl', 'jks')).answer).toBe('TestPacket: MSG:jks:101');
  });

  it('reads PKCS#12 truststores (certificates only; current and legacy protection) on both sides', async () => {
    openssl('pkcs12', '-export', '-nokeys', '-in', file('hosta.crt'), '-out', file('trust-b.p12'), '-passout', 'pass:trustpass');
    openssl('pkcs12', '-export', '-nokeys', '-in', file('hostb.crt'), '-out', file('trust-a.p12'), '-passout', 'pass:trustpass');
    openssl('pkcs12', '-export', '-legacy', '-nokeys', '-in', file('hostb.crt'), '-out', file('trust-a-legacy.p12'), '-passout', 'pass:trustpass');
    openssl('pkcs12', '-export', '-nokeys', '-in', file('intruder.crt'), '-out', file('trust-intruder.p12'), '-passout', 'pass:trustpass');
    // A server requiring client certificates from a PKCS#12 truststore.
    const server = await makeHost('hostp', [], {
      listen: true,
      sslHostId: 'hostp-ssl',
      tls: await loadTlsMaterial({ keyPath: file('hostb.p12'), keyStorePass: 'p12pass', trustKeyPath: file('trust-b.p12'), trustKeyStorePass: 'trustpass', trustUseClientAuthenticate: true }),
    });
    hosts.push(server);
    expect(server.listener).toBeDefined();
    const entries: PartnerEntry[] = [
      { host: hostEntry('hosta-ssl', 0, { isSsl: true }), password: Buffer.from('pa') },
      { host: hostEntry('hostp-ssl', server.listener!.port, { isSsl: true }), password: Buffer.from('pp') },
    ];
    for (const e of entries) server.directory.set(e);
    for (const trust of ['trust-a.p12', 'trust-a-legacy.p12']) {
      const a = await makeHost('hosta', entries, { sslHostId: 'hosta-ssl', tls: await loadTlsMaterial({ keyPath: file('hosta.pem'), trustKeyPath: file(trust), trustKeyStorePass: 'trustpass' }) });
      hosts.push(a);
      expect((await sendMessage(a.pool, 'hostp-ssl', trust)).answer).toBe(`TestPacket: MSG:${trust}:101`);
    }
    // Trusting someone else: the server certificate is refused.
    const wrongTrust = await makeHost('hosta', entries, { sslHostId: 'hosta-ssl', tls: await loadTlsMaterial({ keyPath: file('hosta.pem'), trustKeyPath: file('trust-intruder.p12'), trustKeyStorePass: 'trustpass' }) });
    hosts.push(wrongTrust);
    await expect(sendMessage(wrongTrust.pool, 'hostp-ssl', 'x')).rejects.toMatchObject({ code: ErrorCode.ConnectionImpossible });
    // A wrong password stops the load, naming the file and the setting.
    await expect(loadTlsMaterial({ trustKeyPath: file('trust-a.p12'), trustKeyStorePass: 'nope' })).rejects.toThrow(/cannot read the PKCS#12 truststore .*trust-a\.p12: wrong trustkeystorepass/);
  });

  it('names the file when a store cannot be used', async () => {
    await expect(loadTlsMaterial({ keyPath: file('missing.pem') })).rejects.toThrow(/cannot read the keystore \(ssl\/keypath\) .*missing\.pem: ENOENT/);
    await expect(loadTlsMaterial({ trustKeyPath: file('hosta.p12') })).rejects.toThrow(TlsConfigError);
    await expect(loadTlsMaterial({ keyPath: file('hosta.crt') })).rejects.toThrow(/must hold a private key/);
  });
});

describe('TLS material errors', () => {
  it('refuses a PKCS#12 keystore with a wrong password at load time', async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'svc-tls-bad-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(d, 'k'), '-out', path.join(d, 'c'), '-days', '1', '-subj', '/CN=x'], { stdio: 'pipe' });
      execFileSync('openssl', ['pkcs12', '-export', '-inkey', path.join(d, 'k'), '-in', path.join(d, 'c'), '-out', path.join(d, 'k.p12'), '-passout', 'pass:right'], { stdio: 'pipe' });
      await expect(loadTlsMaterial({ keyPath: path.join(d, 'k.p12'), keyStorePass: 'wrong' })).rejects.toThrow(/cannot use the keystore .*k\.p12/);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
