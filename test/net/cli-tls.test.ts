// svc-r66client message to a partner over TLS (isssl partner), with certificates made by openssl:
// a spawned svc-r66server with a PKCS#12 keystore and mutual TLS (trustuseclientauthenticate),
// and a client whose truststore is a certificate-only PKCS#12 (r66-protocol.md §1.3, cli.md §5.1).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_HEX, runCli, sandbox, spawnCli, writeInstance, type Instance, type Running, type Sandbox } from '../cli/cli-helpers.js';
import { waitFor } from '../helpers/wait.js';

const entry = (hostId: string, port: number, ssl: boolean, extra = ''): string =>
  `<entry><hostid>${hostId}</hostid><address>127.0.0.1</address><port>${port}</port><isssl>${ssl}</isssl><key>${PASSWORD_HEX}</key>${extra}</entry>`;

function sslSection(key: string, trust: string, clientAuth: boolean): string {
  return `<ssl><keypath>${key}</keypath><keystorepass>p12pass</keystorepass><keypass>p12pass</keypass>`
    + `<trustkeypath>${trust}</trustkeypath><trustkeystorepass>trustpass</trustkeystorepass>`
    + `<trustuseclientauthenticate>${clientAuth ? 'True' : 'False'}</trustuseclientauthenticate></ssl>`;
}

/** Adds the SSL host id and the ssl section to an instance's server.xml and client.xml. */
function makeSsl(inst: Instance, key: string, trust: string, clientAuth: boolean): void {
  for (const name of ['server.xml', 'client.xml']) {
    const file = join(inst.confDir, name);
    const xml = readFileSync(file, 'utf8')
      .replace(`<hostid>${inst.hostId}</hostid>`, `<hostid>${inst.hostId}</hostid><sslhostid>${inst.hostId}-ssl</sslhostid>`)
      .replace('</identity>', `</identity>${sslSection(key, trust, clientAuth)}`)
      .replace('<serverport>0</serverport>', '<serverport>0</serverport><serversslport>0</serversslport>');
    writeFileSync(file, xml);
  }
}

describe('message over TLS through the CLI', () => {
  let box: Sandbox;
  let server: Running;
  let env: NodeJS.ProcessEnv;
  let envIntruder: NodeJS.ProcessEnv;

  beforeAll(async () => {
    box = sandbox();
    const certs = join(box.dir, 'certs');
    mkdirSync(certs);
    const f = (n: string): string => join(certs, n);
    const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
    for (const name of ['hosta', 'hostb', 'intruder']) {
      openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.crt`), '-days', '2', '-subj', `/CN=${name}`);
      openssl('pkcs12', '-export', '-inkey', f(`${name}.key`), '-in', f(`${name}.crt`), '-out', f(`${name}.p12`), '-passout', 'pass:p12pass');
    }
    writeFileSync(f('trust-b.pem'), readFileSync(f('hosta.crt')));
    openssl('pkcs12', '-export', '-nokeys', '-in', f('hostb.crt'), '-out', f('trust-a.p12'), '-passout', 'pass:trustpass');

    // hostb: TLS only, client certificates required from its PEM truststore.
    const b = writeInstance(join(box.dir, 'conf', 'hostb'), { hostId: 'hostb', usessl: true, usenossl: false });
    makeSsl(b, f('hostb.p12'), f('trust-b.pem'), true);
    writeFileSync(join(b.confDir, 'authent.xml'), `<authent>${entry('hostb', 1, false, '<admin>true</admin>')}${entry('hostb-ssl', 1, true)}${entry('hosta-ssl', 1, true)}</authent>\n`);
    const bEnv = { ...box.env, CONFDIR: b.confDir };
    expect((await runCli('server', ['initdb', '-auth', join(b.confDir, 'authent.xml'), '-dir', b.confDir], bEnv)).code).toBe(0);
    server = spawnCli('server', ['start'], bEnv);
    const port = await waitFor(() => /R66 TLS listening on port (\d+)/.exec(server.stdout())?.[1], { what: 'hostb TLS listening', timeoutMs: 20_000 })
      .catch((err: Error) => {
        throw new Error(`${err.message}\nstdout: ${server.stdout()}\nstderr: ${server.stderr()}`);
      });

    // hosta (client): its certificate in a PKCS#12 keystore, hostb's in a PKCS#12 truststore.
    const client = async (dirName: string, key: string): Promise<NodeJS.ProcessEnv> => {
      const a = writeInstance(join(box.dir, 'conf', dirName), { hostId: 'hosta' });
      makeSsl(a, key, f('trust-a.p12'), false);
      writeFileSync(join(a.confDir, 'authent.xml'), `<authent>${entry('hosta', 1, false, '<admin>true</admin>')}${entry('hosta-ssl', 1, true)}${entry('hostb-ssl', Number(port), true)}${entry('hostb-plain', Number(port), false)}</authent>\n`);
      const e = { ...box.env, CONFDIR: a.confDir };
      expect((await runCli('client', ['initdb', '-auth', join(a.confDir, 'authent.xml'), '-dir', a.confDir], e)).code).toBe(0);
      return e;
    };
    env = await client('hosta', f('hosta.p12'));
    envIntruder = await client('intruder', f('intruder.p12'));
  }, 120_000);
  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    box?.cleanup();
  });

  it('answers SUCCESS, exit 0, with mutual TLS and the SSL host ids', async () => {
    const r = await runCli('client', ['message', '-to', 'hostb-ssl', '-msg', 'over tls'], env);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code: 0, stdout: 'Test Message       SUCCESS TestPacket: MSG:over tls:101\n' });
  });

  it('a client certificate the server does not trust: FAILURE, exit 2', async () => {
    const r = await runCli('client', ['message', '-to', 'hostb-ssl', '-msg', 'x'], envIntruder);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Test Message {7}FAILURE (ConnectionImpossible|Disconnection)/);
  });

  it('a plain connection to the TLS port fails: FAILURE, exit 2', async () => {
    const r = await runCli('client', ['message', '-to', 'hostb-plain', '-msg', 'x'], env);
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/^Test Message {7}FAILURE (ConnectionImpossible|Disconnection)/);
  });
});
