/**
 * The FTP task against a real proftpd (mod_digest, mod_tls) on loopback: plain, explicit and
 * implicit TLS, passive and active data connections, get/put/append, CWD with MKD, digests,
 * pre/post commands, and the failures (wrong password, refused directory, digest mismatch).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FtpArgumentError, ftpWords, parseFtpOptions } from '../../../src/tasks/network/ftp-options.js';
import { digestFromReply } from '../../../src/tasks/network/ftp-session.js';
import { makeContext, makeHome } from '../helpers.js';
import { runOne } from '../run-one.js';
import { execBusiness } from './business.js';
import { FTP_PASSWORD, FTP_USER, freePort, proftpdAvailable, startProftpd, type FtpServer } from '../../../bench/network/servers.js';

describe('FTP options', () => {
  it('parses every option with its defaults', () => {
    expect(parseFtpOptions(['-file', 'f', '-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'PUT'])).toEqual({
      file: 'f', host: 'h', port: 21, user: 'u', password: 'p', passive: true, tls: 'no', command: 'put',
    });
    expect(parseFtpOptions(['-file', 'f', '-to', 'h', '-port', '2121', '-user', 'u', '-pwd', 'p', '-account', 'a', '-mode', 'whatever', '-ssl', 'explicit',
      '-cwd', 'd', '-digest', 'SHA256', '-pre', 'SITE,UMASK,022', '-post', 'NOOP', '-command', 'append'])).toMatchObject({
      port: 2121, account: 'a', passive: false, tls: 'explicit', cwd: 'd', digest: 'sha256', pre: 'SITE UMASK 022', post: 'NOOP', command: 'append',
    });
  });

  it.each([
    [['-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'put'], /-file is required/],
    [['-file', 'f', '-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'list'], /get, put or append/],
    [['-file', 'f', '-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'put', '-ssl', 'tls'], /-ssl/],
    [['-file', 'f', '-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'put', '-digest', 'md4'], /-digest/],
    [['-file', 'f', '-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'put', '-port', 'x'], /-port/],
    [['-file', 'f', '-to', 'h', '-user', 'u', '-pwd', 'p', '-command', 'put', '-bogus', 'x'], /unknown option -bogus/],
  ])('refuses %j', (words, message) => {
    expect(() => parseFtpOptions(words)).toThrow(FtpArgumentError);
    expect(() => parseFtpOptions(words)).toThrow(message);
  });

  it('formats the argument with the transfer information, then substitutes variables word by word', () => {
    const home = makeHome();
    const ctx = makeContext(home.home, { currentFile: '/data/out/a.txt' });
    expect(ftpWords('-file #TRUEFULLPATH# -cwd %s/#DATE# -pre SITE,UMASK,%2$s -post SITE,CHMOD,600,#TRUEFILENAME#', ctx)).toEqual([
      '-file', '/data/out/a.txt', '-cwd', 'lot42/20240315', '-pre', 'SITE,UMASK,extra', '-post', 'SITE,CHMOD,600,a.txt',
    ]);
    home.cleanup();
  });

  it('reads the hash of a digest reply in the forms servers use', () => {
    expect(digestFromReply('250 0A1B2C3D', 'crc')).toBe('0a1b2c3d');
    expect(digestFromReply('213 file.txt 0A1B2C3D', 'crc')).toBe('0a1b2c3d');
    expect(digestFromReply('d41d8cd98f00b204e9800998ecf8427e', 'md5')).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });
});

describe.skipIf(!proftpdAvailable())('FTP against proftpd', () => {
  let ftp: FtpServer;
  let implicit: FtpServer;
  const home = makeHome();
  const content = Buffer.alloc(1_500_000);
  for (let i = 0; i < content.length; i++) content[i] = (i * 7919) % 251;
  const local = join(home.home, 'out', 'data.bin');

  beforeAll(async () => {
    [ftp, implicit] = await Promise.all([startProftpd(), startProftpd({ implicitTls: true })]);
    writeFileSync(local, content);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([ftp?.stop(), implicit?.stop()]);
    home.cleanup();
  });

  const args = (server: FtpServer, extra: string): string => `-file #TRUEFULLPATH# -to 127.0.0.1 -port ${server.port} -user ${FTP_USER} -pwd ${FTP_PASSWORD} ${extra}`;

  it.each([
    ['plain, passive, md5', 'no', 'passive', 'md5'],
    ['plain, active, crc', 'no', 'active', 'crc'],
    ['explicit TLS, passive, sha256', 'explicit', 'passive', 'sha256'],
    ['explicit TLS, active, sha512', 'explicit', 'active', 'sha512'],
  ])('put then get, %s, digest checked', async (_name, ssl, mode, digest) => {
    const dir = `d-${ssl}-${mode}`;
    const ctx = makeContext(home.home, { currentFile: local });
    const put = await runOne('FTP', args(ftp, `-ssl ${ssl} -mode ${mode} -cwd ${dir} -digest ${digest} -command put`), ctx);
    expect(put, ctx.logger.text()).toEqual({ kind: "success" });
    expect(readFileSync(join(ftp.home, dir, 'data.bin')).equals(content)).toBe(true);
    const back = join(home.home, 'in', 'data.bin');
    const get = await runOne('FTP', `-file ${back} -to 127.0.0.1 -port ${ftp.port} -user ${FTP_USER} -pwd ${FTP_PASSWORD} -ssl ${ssl} -mode ${mode} -cwd ${dir} -digest ${digest} -command get`, makeContext(home.home));
    expect(get).toEqual({ kind: 'success' });
    expect(readFileSync(back).equals(content)).toBe(true);
  });

  it('implicit TLS, with an account and pre/post commands', async () => {
    const small = join(home.home, 'out', 'small.txt');
    writeFileSync(small, 'hello\n');
    const ctx = makeContext(home.home, { currentFile: small });
    const res = await runOne('FTP', args(implicit, '-ssl implicit -account acc1 -pre SITE,UMASK,022 -post SITE,CHMOD,600,small.txt -digest sha1 -command put'), ctx);
    expect(res).toEqual({ kind: 'success' });
    expect(statSync(join(implicit.home, 'small.txt')).mode & 0o777).toBe(0o600);
    expect(ctx.logger.text()).not.toContain(FTP_PASSWORD);
  });

  it('append adds to the remote file; the digest of the local part then mismatches (T)', async () => {
    const part = join(home.home, 'out', 'part.txt');
    writeFileSync(part, 'line\n');
    const first = await runOne('FTP', args(ftp, '-command append'), makeContext(home.home, { currentFile: part }));
    expect(first).toEqual({ kind: 'success' });
    const second = await runOne('FTP', args(ftp, '-mode active -command append -digest md5'), makeContext(home.home, { currentFile: part }));
    expect(readFileSync(join(ftp.home, 'part.txt'), 'utf8'), JSON.stringify(second)).toBe('line\nline\n');
    expect(second).toMatchObject({ kind: 'failure', code: { char: 'T' } });
    expect(second.kind === 'failure' && second.message).toContain('digest mismatch');
  });

  it('a wrong password fails with C and never shows a password', async () => {
    const ctx = makeContext(home.home, { currentFile: local });
    const res = await runOne('FTP', `-file #TRUEFULLPATH# -to 127.0.0.1 -port ${ftp.port} -user ${FTP_USER} -pwd Wrong-Secret-42 -command put`, ctx);
    expect(res).toMatchObject({ kind: 'failure', code: { char: 'C' } });
    const text = `${res.kind === 'failure' ? res.message : ''}\n${ctx.logger.text()}`;
    expect(text).toContain('refused');
    expect(text).not.toContain('Wrong-Secret-42');
  });

  it('a refused directory: CWD failure only logged; a directory refusing STOR fails with T after one retry', async () => {
    const ctx = makeContext(home.home, { currentFile: local });
    const res = await runOne('FTP', args(ftp, '-cwd refused -command put'), ctx);
    expect(res).toEqual({ kind: 'success' });
    expect(ctx.logger.text()).toMatch(/CWD refused failed after MKD/);
    expect(existsSync(join(ftp.home, 'data.bin'))).toBe(true);
    const ro = makeContext(home.home, { currentFile: local });
    const refused = await runOne('FTP', args(ftp, '-cwd readonly -command put'), ro);
    expect(refused).toMatchObject({ kind: 'failure', code: { char: 'T' } });
    expect(ro.logger.text()).toContain('reconnecting once');
  });

  it('runs in a business request (ExecBusinessTask, no transfer information); S3PUT is not allowed there', async () => {
    const res = await execBusiness(home.home, `FTP -file ${local} -to 127.0.0.1 -port ${ftp.port} -user ${FTP_USER} -pwd ${FTP_PASSWORD} -cwd business -command put`);
    expect(res).toMatchObject({ ok: true });
    expect(readFileSync(join(ftp.home, 'business', 'data.bin')).equals(content)).toBe(true);
    expect((await execBusiness(home.home, `S3PUT -URL http://127.0.0.1:1 -accessKey a -secretKey b -bucketName bucket -targetName t`)).result).toMatch(/not allowed in business requests/);
  });

  it('no server: C; bad options: c', async () => {
    const port = await freePort();
    const none = await runOne('FTP', `-file x -to 127.0.0.1 -port ${port} -user u -pwd p -command put`, makeContext(home.home));
    expect(none).toMatchObject({ kind: 'failure', code: { char: 'C' } });
    const bad = await runOne('FTP', '-file x -to h -user u -pwd Hidden-1 -command list', makeContext(home.home));
    expect(bad).toMatchObject({ kind: 'failure', code: { char: 'c' } });
    expect(bad.kind === 'failure' && bad.message).not.toContain('Hidden-1');
  });
});
