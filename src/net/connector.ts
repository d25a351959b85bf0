/**
 * Opening a connection to a partner (r66-protocol.md §1.3, §1.4): TCP or TLS by the partner entry's
 * `isSsl`, `timeoutcon` as connect timeout, up to 3 attempts 10 ms apart, none more after a refused
 * connection; TLS handshake within 10 s.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ErrorCode } from '../model/error-code.js';
import type { Host } from '../model/host.js';
import { acceptChannel } from './acceptor.js';
import { Connection } from './connection.js';
import type { NetContext } from './context.js';
import { R66Error } from '../model/r66-error.js';
import { connectOptions, SocketReads } from './socket-reads.js';
import { TLS_HANDSHAKE_TIMEOUT_MS, type TlsMaterial } from './tls.js';

const ATTEMPTS = 3;
const RETRY_DELAY_MS = 10;

/** `reads`: for a plain TCP partner, where the socket's reads go (socket-reads.ts). */
function openSocket(host: Host, tls: TlsMaterial | undefined, timeoutMs: number, reads: SocketReads): Promise<Socket | TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket: Socket | TLSSocket = host.isSsl
      ? tlsConnect({ ...tls!.client, host: host.address, port: host.port })
      : tcpConnect(connectOptions({ host: host.address, port: host.port }, reads));
    const readyEvent = host.isSsl ? 'secureConnect' : 'connect';
    const limit = host.isSsl ? timeoutMs + TLS_HANDSHAKE_TIMEOUT_MS : timeoutMs;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`no connection within ${limit} ms`), { code: 'ETIMEDOUT' }));
    }, limit);
    socket.once(readyEvent, () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
    const onError = (err: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    socket.once('error', onError);
  });
}

/** Connects to `host` and wraps the socket in a Connection (channels the peer opens are served too). */
export async function connectTo(ctx: NetContext, host: Host, tls?: TlsMaterial): Promise<Connection> {
  if (host.isSsl && tls === undefined) {
    throw new R66Error(ErrorCode.ConnectionImpossible, `partner ${host.hostId} is a TLS partner but no TLS material (ssl section) is configured`);
  }
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    try {
      const reads = new SocketReads();
      const socket = await openSocket(host, tls, ctx.timeoutConMs, reads);
      socket.setKeepAlive(true);
      socket.setNoDelay(true);
      return new Connection(socket, {
        isTls: host.isSsl,
        timeoutConMs: ctx.timeoutConMs,
        maxFrameLength: ctx.maxFrameLength,
        logger: ctx.logger,
        notify: ctx.notify,
        // Our side accepts channels opened by either side on any connection (§1.4).
        onNewChannel: (channel) => acceptChannel(ctx, channel),
        reads: host.isSsl ? undefined : reads,
        // A partner we call is held to the same bounds until our Authent is answered, and after.
        handshakeFrameBytes: ctx.guard?.handshakeFrameBytes,
        budget: ctx.guard?.budget,
        warnings: ctx.guard?.warnings,
      });
    } catch (err) {
      lastError = err as Error;
      if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED') break;
      if (attempt < ATTEMPTS) await new Promise((r) => setTimeout(r, RETRY_DELAY_MS));
    }
  }
  throw new R66Error(ErrorCode.ConnectionImpossible, `cannot connect to ${host.hostId} at ${host.address}:${host.port}: ${lastError?.message ?? 'unknown error'}`);
}
