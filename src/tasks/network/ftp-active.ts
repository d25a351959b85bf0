/**
 * Active-mode data connections for basic-ftp, which only opens passive ones itself. The strategy
 * listens on the control connection's local address, sends PORT (EPRT for IPv6), and hands
 * basic-ftp a stand-in socket at once: the server connects only after the transfer command, and
 * the stand-in forwards to the real connection when it arrives (wrapped in TLS, as the client
 * side, when the control connection is protected, RFC 4217).
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { Duplex } from 'node:stream';
import type { FTPContext, FTPResponse } from 'basic-ftp';

class ActiveDataSocket extends Duplex {
  private real: Socket | null = null;
  private pending: { chunk: Buffer; cb: (err?: Error | null) => void } | null = null;
  private finalCb: ((err?: Error | null) => void) | null = null;

  constructor(private readonly server: Server) {
    super();
  }

  get bytesRead(): number {
    return this.real?.bytesRead ?? 0;
  }

  get bytesWritten(): number {
    return this.real?.bytesWritten ?? 0;
  }

  setTimeout(): this {
    return this; // basic-ftp's watchdog tracks progress; the real socket has no timeout
  }

  attach(socket: Socket): void {
    this.server.close();
    this.real = socket;
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (err) => this.destroy(err));
    if (this.pending) {
      const { chunk, cb } = this.pending;
      this.pending = null;
      socket.write(chunk, cb);
    }
    if (this.finalCb) this.finish(this.finalCb);
  }

  override _read(): void {
    this.real?.resume();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.real) this.real.write(chunk, cb);
    else this.pending = { chunk, cb };
  }

  private finish(cb: (err?: Error | null) => void): void {
    const real = this.real as Socket;
    real.end(() => cb());
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (this.real) this.finish(cb);
    else this.finalCb = cb;
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.server.close();
    this.real?.destroy();
    cb(err);
  }
}

/** The basic-ftp transfer strategy of active mode. */
export async function enterActiveMode(ftp: FTPContext): Promise<FTPResponse> {
  const control = ftp.socket;
  const localAddress = control.localAddress ?? '127.0.0.1';
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, localAddress, () => resolve());
  });
  const { port, family } = server.address() as AddressInfo;
  const command = family === 'IPv6' || localAddress.includes(':')
    ? `EPRT |2|${localAddress}|${port}|`
    : `PORT ${localAddress.split('.').join(',')},${port >> 8},${port & 255}`;
  let res: FTPResponse;
  try {
    res = await ftp.request(command);
  } catch (err) {
    server.close();
    throw err;
  }
  const stand = new ActiveDataSocket(server);
  server.once('connection', (socket: Socket) => {
    if (control instanceof TLSSocket) {
      const secure = tlsConnect({ ...ftp.tlsOptions, socket, session: ftp.tlsSessionStore ?? control.getSession() });
      secure.once('secureConnect', () => stand.attach(secure));
      secure.once('error', (err) => stand.destroy(err));
    } else {
      stand.attach(socket);
    }
  });
  server.once('error', (err) => stand.destroy(err));
  ftp.dataSocket = stand as unknown as Socket;
  return res;
}
