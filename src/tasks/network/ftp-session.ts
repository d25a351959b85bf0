/**
 * One run of the FTP task on basic-ftp (tasks.md §8 FTP): connect (3 attempts), TLS, login with
 * an optional account, data mode, CWD (MKD on failure), pre command, binary type, the data
 * command, digest check, post command, QUIT; one reconnection and retry when the data command
 * fails. Files are streamed: nothing holds a whole file in memory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { Client, enterPassiveModeIPv4, type FTPResponse } from 'basic-ftp';
import type { ConnectionOptions } from 'node:tls';
import { enterActiveMode } from './ftp-active.js';
import type { FtpDigest, FtpOptions } from './ftp-options.js';

/** Why a run failed: `connect` maps to code C, `transfer` to T (tasks.md). */
export class FtpTaskError extends Error {
  constructor(
    readonly kind: 'connect' | 'transfer',
    message: string,
  ) {
    super(message);
    this.name = 'FtpTaskError';
  }
}

export type FtpLog = (level: 'debug' | 'info' | 'warn', msg: string) => void;

export const CONNECT_ATTEMPTS = 3;
const TIMEOUT_MS = 30_000;

const DIGEST_COMMAND: Record<FtpDigest, string> = { crc: 'XCRC', md5: 'XMD5', sha1: 'XSHA1', sha256: 'XSHA256', sha384: 'XSHA384', sha512: 'XSHA512' };
const HEX_LENGTH: Record<FtpDigest, number> = { crc: 8, md5: 32, sha1: 40, sha256: 64, sha384: 96, sha512: 128 };

/**
 * The reference accepts the server's certificate without checking its chain (Apache Commons
 * Net's default trust manager): an FTP server's self-signed certificate works the same here.
 */
const TLS_OPTIONS: ConnectionOptions = { rejectUnauthorized: false };

/** Lower-case hex digest of a local file, streamed. */
export async function localDigest(path: string, algo: FtpDigest): Promise<string> {
  if (algo === 'crc') {
    let crc = 0;
    await pipeline(createReadStream(path), new Writable({ write(chunk: Buffer, _e, cb) { crc = crc32(chunk, crc); cb(); } }));
    return crc.toString(16).padStart(8, '0');
  }
  const hash = createHash(algo);
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * The hash in a digest reply. The reference splits the first line and takes the 2nd word when
 * there are more than 3, else the 1st; servers differ (`250 <hash>`, `213 <file> <hash>`, and
 * proftpd's multi-line `250-Computing MD5 digest` then `250 <hash>` on large files), so the first
 * word of the expected hex length on any line is taken, the reference's rule otherwise.
 */
export function digestFromReply(message: string, algo: FtpDigest): string {
  const lines = message.split(/\r?\n/).map((l) => l.trim().replace(/^\d{3}[ -]/, ''));
  for (const line of lines) {
    const exact = line.split(/\s+/).find((w) => w.length === HEX_LENGTH[algo] && /^[0-9a-fA-F]+$/.test(w));
    if (exact) return exact.toLowerCase();
  }
  const words = (lines[0] ?? '').split(/\s+/);
  return ((words.length > 3 ? words[1] : words[0]) ?? '').toLowerCase();
}

/** The text of a basic-ftp failure: the server's reply (`451 ...`), never a command we sent. */
function replyOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

async function connectOnce(o: FtpOptions, log: FtpLog): Promise<Client> {
  const client = new Client(TIMEOUT_MS);
  client.ftp.verbose = false; // the control channel carries PASS: never traced
  try {
    if (o.tls === 'implicit') await client.connectImplicitTLS(o.host, o.port, TLS_OPTIONS);
    else await client.connect(o.host, o.port);
    // AUTH TLS before USER so that the password never travels in clear.
    if (o.tls === 'explicit') await client.useTLS(TLS_OPTIONS);
  } catch (err) {
    client.close();
    throw new FtpTaskError('connect', `cannot connect to ${o.host}:${o.port}: ${replyOf(err)}`);
  }
  try {
    const user = await client.sendIgnoringError(`USER ${o.user}`);
    let res: FTPResponse = user;
    if (user.code === 331) res = await client.sendIgnoringError(`PASS ${o.password}`);
    if (res.code === 332) {
      if (o.account === undefined) throw new FtpTaskError('connect', `login to ${o.host}:${o.port} as ${o.user} needs an account (-account)`);
      res = await client.sendIgnoringError(`ACCT ${o.account}`);
    } else if (res.code === 230 && o.account !== undefined) {
      const acct = await client.sendIgnoringError(`ACCT ${o.account}`);
      if (acct.code >= 400) log('warn', `ACCT refused: ${acct.message}`);
    }
    if (res.code < 200 || res.code >= 300) throw new FtpTaskError('connect', `login to ${o.host}:${o.port} as ${o.user} refused: ${res.message}`);
    if (o.tls !== 'no') {
      await client.send('PBSZ 0');
      await client.send('PROT P');
    }
    return client;
  } catch (err) {
    client.close();
    if (err instanceof FtpTaskError) throw err;
    throw new FtpTaskError('connect', `login to ${o.host}:${o.port} failed: ${replyOf(err)}`);
  }
}

/** Connects and logs in, up to CONNECT_ATTEMPTS times. */
async function connectAndLogin(o: FtpOptions, log: FtpLog): Promise<Client> {
  let last: FtpTaskError | undefined;
  for (let attempt = 1; attempt <= CONNECT_ATTEMPTS; attempt++) {
    try {
      return await connectOnce(o, log);
    } catch (err) {
      last = err instanceof FtpTaskError ? err : new FtpTaskError('connect', replyOf(err));
      // A refused login will not improve by retrying.
      if (last.message.includes('refused')) break;
      log('debug', `FTP connection attempt ${attempt} failed: ${last.message}`);
    }
  }
  throw last as FtpTaskError;
}

/** Sends a raw command; the reply is only logged (the pre/post commands of the rule). */
async function raw(client: Client, command: string, what: string, log: FtpLog): Promise<void> {
  const res = await client.sendIgnoringError(command);
  log(res.code >= 400 ? 'warn' : 'debug', `${what} command answered ${res.code} ${res.message}`);
}

async function prepare(client: Client, o: FtpOptions, log: FtpLog): Promise<void> {
  client.prepareTransfer = o.passive ? enterPassiveModeIPv4 : enterActiveMode;
  if (o.cwd !== undefined) {
    const cwd = await client.sendIgnoringError(`CWD ${o.cwd}`);
    if (cwd.code >= 400) {
      await client.sendIgnoringError(`MKD ${o.cwd}`);
      const again = await client.sendIgnoringError(`CWD ${o.cwd}`);
      if (again.code >= 400) log('warn', `CWD ${o.cwd} failed after MKD: ${again.code} ${again.message}`);
    }
  }
  if (o.pre !== undefined) await raw(client, o.pre, 'pre', log);
  await client.send('TYPE I');
}

async function dataCommand(client: Client, o: FtpOptions, remote: string): Promise<void> {
  if (o.command === 'get') await client.downloadTo(createWriteStream(o.file), remote);
  else if (o.command === 'put') await client.uploadFrom(createReadStream(o.file), remote);
  else await client.appendFrom(createReadStream(o.file), remote);
}

async function checkDigest(client: Client, o: FtpOptions, algo: FtpDigest, remote: string, log: FtpLog): Promise<void> {
  const res = await client.sendIgnoringError(`${DIGEST_COMMAND[algo]} ${remote}`);
  if (res.code >= 400) throw new FtpTaskError('transfer', `${DIGEST_COMMAND[algo]} ${remote} refused: ${res.code} ${res.message}`);
  log("debug", `${DIGEST_COMMAND[algo]} answered ${res.code} ${res.message}`);
  const theirs = digestFromReply(res.message, algo);
  const ours = await localDigest(o.file, algo);
  if (theirs !== ours) throw new FtpTaskError('transfer', `${algo} digest mismatch for ${remote}: server ${theirs || '(none)'}, local ${ours}`);
}

/** Runs the whole exchange; throws FtpTaskError. */
export async function runFtp(o: FtpOptions, log: FtpLog): Promise<void> {
  const remote = basename(o.file);
  let client = await connectAndLogin(o, log);
  try {
    await prepare(client, o, log);
    try {
      await dataCommand(client, o, remote);
    } catch (first) {
      log('warn', `FTP ${o.command} of ${remote} failed (${replyOf(first)}): reconnecting once`);
      client.close();
      client = await connectAndLogin(o, log);
      await prepare(client, o, log);
      try {
        await dataCommand(client, o, remote);
      } catch (second) {
        throw new FtpTaskError('transfer', `FTP ${o.command} of ${remote} failed: ${replyOf(second)}`);
      }
    }
    if (o.digest !== undefined) await checkDigest(client, o, o.digest, remote, log);
    if (o.post !== undefined) await raw(client, o.post, 'post', log);
    await client.sendIgnoringError('QUIT').catch(() => undefined);
  } catch (err) {
    if (err instanceof FtpTaskError) throw err;
    throw new FtpTaskError('transfer', `FTP session with ${o.host}:${o.port} failed: ${replyOf(err)}`);
  } finally {
    client.close();
  }
}
