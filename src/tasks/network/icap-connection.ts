/**
 * One ICAP connection: writes that respect the socket's back-pressure, and reads of response
 * headers bounded by `-receiveSize`. Every failure becomes an IcapFailure carrying the scan status
 * of icap.md §3 and the original's error number (for logs).
 */
import { connect, type Socket } from 'node:net';

/** A scan that cannot complete: `status` 1, 2 or 3 (icap.md §3), `id` the original's error number. */
export class IcapFailure extends Error {
  constructor(
    readonly status: 1 | 2 | 3,
    readonly id: number,
    message: string,
  ) {
    super(message);
    this.name = 'IcapFailure';
  }
}

export const ERR = {
  CONNECT: 1000,
  SERVER_CLOSED: 1001,
  UNKNOWN_CODE: 1003,
  MISSING_INFO: 1006,
  NETWORK: 1007,
  NO_TERMINATOR: 1008,
  HEADER_TOO_BIG: 1009,
  SERVICE_UNKNOWN: 1010,
  ARGUMENT: 2001,
  TIMEOUT: 2002,
  TOO_BIG: 2003,
} as const;

const HEADER_END = Buffer.from('\r\n\r\n');
const BODY_END = Buffer.from('0\r\n\r\n');

export class IcapConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private failure: IcapFailure | null = null;
  private ended = false;
  private wake: (() => void) | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly pauseAbove: number,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
      // The server may talk while we send (a 200 with a body): never hold more than we may read.
      if (this.buffered.length > this.pauseAbove) socket.pause();
      this.notify();
    });
    socket.on('end', () => {
      this.ended = true;
      this.notify();
    });
    socket.on('timeout', () => this.fail(new IcapFailure(3, ERR.TIMEOUT, 'no answer from the ICAP server within the timeout')));
    socket.on('error', (err: NodeJS.ErrnoException) => this.fail(new IcapFailure(3, ERR.NETWORK, `network error: ${err.code ?? err.message}`)));
    socket.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  /** Connects with TCP keep-alive and the read timeout; connection failures are status 3. */
  static open(host: string, port: number, timeoutMs: number, receiveSize: number): Promise<IcapConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, keepAlive: true });
      const onError = (err: NodeJS.ErrnoException): void => {
        socket.destroy();
        reject(new IcapFailure(3, ERR.CONNECT, `cannot connect to ICAP server ${host}:${port}: ${err.code ?? err.message}`));
      };
      socket.setTimeout(timeoutMs, () => onError(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        socket.removeAllListeners('timeout');
        socket.setTimeout(timeoutMs);
        resolve(new IcapConnection(socket, Math.max(receiveSize * 2, 1 << 20)));
      });
    });
  }

  private fail(err: IcapFailure): void {
    this.failure ??= err;
    this.socket.destroy();
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private waitForData(): Promise<void> {
    this.socket.resume();
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** Writes, waiting for the socket to drain when its buffer is full. */
  async write(data: Buffer | string): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.socket.destroyed || this.socket.writableEnded) throw new IcapFailure(3, ERR.SERVER_CLOSED, 'the ICAP server closed the connection');
    if (this.socket.write(data)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
    if (this.failure) throw this.failure;
  }

  /**
   * The next response header, up to and including its empty line, at most `limit` bytes. A server
   * that closes before the end of the header is a network error (status 3).
   */
  async readHeader(limit: number): Promise<string> {
    for (;;) {
      const at = this.buffered.indexOf(HEADER_END);
      if (at >= 0 && at + HEADER_END.length <= limit) {
        const header = this.buffered.subarray(0, at + HEADER_END.length).toString('latin1');
        this.buffered = this.buffered.subarray(at + HEADER_END.length);
        return header;
      }
      if (this.buffered.length >= limit || at >= 0) throw new IcapFailure(2, ERR.HEADER_TOO_BIG, `ICAP response header larger than ${limit} bytes (-receiveSize)`);
      if (this.failure) throw this.failure;
      if (this.ended) {
        throw new IcapFailure(3, ERR.SERVER_CLOSED, this.buffered.length === 0 ? 'the ICAP server closed the connection without answering' : 'the ICAP server closed the connection in the middle of its answer');
      }
      await this.waitForData();
    }
  }

  /** The encapsulated part of an answer: up to the last chunk, `limit` bytes or the end of the stream. */
  async readBody(limit: number): Promise<string> {
    for (;;) {
      const at = this.buffered.indexOf(BODY_END);
      if (at >= 0 || this.buffered.length >= limit || this.ended || this.failure) {
        const end = at >= 0 ? at + BODY_END.length : Math.min(limit, this.buffered.length);
        return this.buffered.subarray(0, end).toString('latin1');
      }
      await this.waitForData();
    }
  }

  close(): void {
    this.socket.destroy();
  }
}
