/**
 * A raw peer: the baselines' sender or receiver, run as its own process so the baselines pay the
 * same process boundary as two svc hosts. No protocol beyond what the scenario needs, no hash.
 *
 *   node peer.js '<json PeerConfig>'
 *
 * Talks to the harness with JSON lines on stdout: {"event":"ready"} (receiver: with its port) once
 * set up; a sender then waits for "go" on stdin, so connection set-up and process start are not
 * timed; {"event":"done",...} at the end. The peer then stays alive until stdin closes, so the
 * harness can read its /proc figures at the end of the window.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { createServer, connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';

export type PeerMode = 'mem' | 'file' | 'small';

export interface PeerConfig {
  role: 'send' | 'receive';
  mode: PeerMode;
  /** Sender: the receiver's port on 127.0.0.1. */
  port?: number;
  /** mem sender: bytes to send. */
  bytes?: number;
  /** file modes: the file to read (sender) or write (receiver). */
  file?: string;
  /** small modes: the folder of the files to read (sender) or write (receiver). */
  dir?: string;
  /** small sender: the file names to send, in order. */
  names?: string[];
  /** Receiver: fdatasync each file before closing/acknowledging it. */
  sync?: boolean;
}

/**
 * Unit of reads and writes: the R66 default block size (server.xml limit/blocksize), so the
 * ceiling does its I/O in the same units as the protocol does by default.
 */
export const CHUNK = 64 * 1024;
const ACK = Buffer.from([6]);

function emit(event: string, data: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ event, ...data })}\n`);
}

function selfUsage(): Record<string, number> {
  const u = process.resourceUsage();
  return { cpuSeconds: (u.userCPUTime + u.systemCPUTime) / 1e6, maxRssBytes: u.maxRSS * 1024 };
}

// Listeners rather than `for await`: leaving a for-await loop would close stdin's reader, and the
// closing of stdin is what tells the peer it may exit.
const stdinLines = createInterface({ input: process.stdin });
const stdinClosed = once(stdinLines, 'close');
const go = new Promise<void>((resolve, reject) => {
  stdinLines.on('line', (line) => line.trim() === 'go' && resolve());
  stdinLines.on('close', () => reject(new Error('stdin closed before go')));
});
go.catch(() => undefined); // receivers never wait for it

async function waitGo(): Promise<void> {
  await go;
}

// ---------------------------------------------------------------------------------------------
// Receivers

async function receiveMem(sock: Socket): Promise<Record<string, unknown>> {
  let bytes = 0;
  for await (const chunk of sock) bytes += (chunk as Buffer).length;
  return { bytes, files: 0 };
}

async function receiveFile(sock: Socket, cfg: PeerConfig): Promise<Record<string, unknown>> {
  const fh = await open(required(cfg.file, 'file'), 'w');
  let bytes = 0;
  try {
    // One write per chunk as it arrives; awaiting it pauses the socket (back-pressure from disk).
    for await (const chunk of sock) {
      const c = chunk as Buffer;
      await fh.write(c, 0, c.length, bytes);
      bytes += c.length;
    }
    if (cfg.sync === true) await fh.datasync();
  } finally {
    await fh.close();
  }
  return { bytes, files: 1 };
}

/**
 * Small files on one connection: [u32 name length][u32 size][name][content] per file; after the
 * content is written (and synced with --sync) and the file closed, one ACK byte goes back.
 */
async function receiveSmall(sock: Socket, cfg: PeerConfig): Promise<Record<string, unknown>> {
  const dir = required(cfg.dir, 'dir');
  let pending = Buffer.alloc(0);
  let current: { fh: import('node:fs/promises').FileHandle; left: number } | undefined;
  let files = 0;
  let bytes = 0;
  for await (const chunk of sock) {
    let buf = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer]);
    pending = Buffer.alloc(0);
    while (buf.length > 0) {
      if (current === undefined) {
        if (buf.length < 8) break;
        const nameLen = buf.readUInt32BE(0);
        if (buf.length < 8 + nameLen) break;
        const size = buf.readUInt32BE(4);
        const name = buf.toString('utf8', 8, 8 + nameLen);
        current = { fh: await open(join(dir, name), 'w'), left: size };
        buf = buf.subarray(8 + nameLen);
      }
      const take = Math.min(current.left, buf.length);
      if (take > 0) await current.fh.write(buf, 0, take);
      current.left -= take;
      bytes += take;
      buf = buf.subarray(take);
      if (current.left === 0) {
        if (cfg.sync === true) await current.fh.datasync();
        await current.fh.close();
        current = undefined;
        files++;
        sock.write(ACK);
      }
    }
    if (buf.length > 0) pending = Buffer.from(buf);
  }
  return { bytes, files };
}

async function receive(cfg: PeerConfig): Promise<void> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  emit('ready', { port: typeof address === 'object' && address !== null ? address.port : 0 });
  const [sock] = (await once(server, 'connection')) as [Socket];
  server.close();
  sock.setNoDelay(true);
  const handlers = { mem: receiveMem, file: receiveFile, small: receiveSmall };
  const result = await handlers[cfg.mode](sock, cfg);
  sock.end();
  emit('done', { ...result, ...selfUsage() });
}

// ---------------------------------------------------------------------------------------------
// Senders

async function write(sock: Socket, data: Buffer): Promise<void> {
  if (!sock.write(data)) await once(sock, 'drain');
}

async function sendMem(sock: Socket, cfg: PeerConfig): Promise<Record<string, unknown>> {
  const total = required(cfg.bytes, 'bytes');
  // One buffer written again and again: memory to memory, nothing allocated per chunk.
  const pattern = randomBytes(1024 * 1024);
  let sent = 0;
  while (sent < total) {
    const n = Math.min(CHUNK, total - sent);
    const at = sent % pattern.length;
    await write(sock, pattern.subarray(at, Math.min(at + n, pattern.length)));
    sent += Math.min(n, pattern.length - at);
  }
  sock.end();
  await once(sock, 'close');
  return { bytes: sent, files: 0 };
}

async function sendFile(sock: Socket, cfg: PeerConfig): Promise<Record<string, unknown>> {
  let bytes = 0;
  const input = createReadStream(required(cfg.file, 'file'), { highWaterMark: CHUNK });
  input.on('data', (c) => (bytes += c.length));
  await pipeline(input, sock);
  return { bytes, files: 1 };
}

async function sendSmall(sock: Socket, cfg: PeerConfig): Promise<Record<string, unknown>> {
  const dir = required(cfg.dir, 'dir');
  // ACK bytes arrive on 'data'; each file waits for its own before the next one starts.
  let acks = 0;
  let wake: (() => void) | undefined;
  sock.on('data', (d: Buffer) => {
    acks += d.length;
    wake?.();
  });
  let bytes = 0;
  const names = required(cfg.names, 'names');
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    const content = await readFile(join(dir, name));
    const nameBytes = Buffer.from(name, 'utf8');
    const header = Buffer.alloc(8);
    header.writeUInt32BE(nameBytes.length, 0);
    header.writeUInt32BE(content.length, 4);
    sock.write(Buffer.concat([header, nameBytes]));
    await write(sock, content);
    bytes += content.length;
    while (acks <= i) await new Promise<void>((r) => (wake = r));
  }
  sock.end();
  return { bytes, files: names.length };
}

async function send(cfg: PeerConfig): Promise<void> {
  const sock = connect({ host: '127.0.0.1', port: required(cfg.port, 'port') });
  await once(sock, 'connect');
  sock.setNoDelay(true);
  emit('ready');
  await waitGo();
  const handlers = { mem: sendMem, file: sendFile, small: sendSmall };
  const result = await handlers[cfg.mode](sock, cfg);
  emit('done', { ...result, ...selfUsage() });
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`peer: missing ${what} in the configuration`);
  return value;
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2] ?? '{}') as PeerConfig;
  await (cfg.role === 'send' ? send(cfg) : receive(cfg));
  // Stay until the harness has read our /proc figures and closes stdin.
  await stdinClosed;
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`peer: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
