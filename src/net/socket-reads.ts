/**
 * Plain TCP sockets read into one buffer that every socket of the process reuses (Node's `onread`
 * option), instead of a new 64 KiB buffer per read. Each read's callback runs to its end before
 * the next read of any socket, and the connection copies its frames out during it (FrameSplitter in
 * protocol/frame.ts), so one buffer serves them all. Per-read buffers made V8 collect garbage for
 * "external memory pressure" every 32 MB received, and at times run a full collection every 60 ms
 * for a whole large transfer: twice the receiving host's CPU (docs/performance.md, "Ninth pass").
 *
 * TLS sockets keep their 'data' events: Node's TLS layer hands out buffers of its own.
 */
import { Socket, type TcpSocketConnectOpts } from 'node:net';

/** The shared read buffer's size: up to four 64 KiB blocks per read system call. */
const READ_BUFFER_BYTES = 256 * 1024;

let sharedBuffer: Buffer | undefined;

/** Reads this process made into the shared buffer (what tells a test, or a profile, that it happened). */
export const sharedReadCounters = { reads: 0 };

function readBuffer(): Buffer {
  sharedBuffer ??= Buffer.allocUnsafeSlow(READ_BUFFER_BYTES);
  return sharedBuffer;
}

/**
 * Where a socket's reads go. The socket exists before the Connection that handles its bytes: reads
 * that come before attach() (none in the protocol's order, where the requester speaks first) are
 * kept as copies and handed over then.
 */
export class SocketReads {
  private deliver: ((chunk: Buffer) => void) | null = null;
  private early: Buffer[] = [];

  /** The `onread` callback: the chunk is only valid during the call. */
  readonly onRead = (nread: number, buffer: Uint8Array): boolean => {
    sharedReadCounters.reads++;
    const chunk = Buffer.from(buffer.buffer, buffer.byteOffset, nread);
    if (this.deliver !== null) this.deliver(chunk);
    else this.early.push(Buffer.from(chunk));
    return true;
  };

  /** From now on each read calls `deliver` with a chunk valid only during that call. */
  attach(deliver: (chunk: Buffer) => void): void {
    this.deliver = deliver;
    for (const chunk of this.early.splice(0)) deliver(chunk);
  }
}

/** `net.connect` options reading into the shared buffer, for `reads`. */
export function connectOptions(options: TcpSocketConnectOpts, reads: SocketReads): TcpSocketConnectOpts {
  return { ...options, onread: { buffer: readBuffer(), callback: reads.onRead } };
}

/** What net.Server keeps of an accepted socket's handle (not in Node's public types). */
interface AcceptedSocket {
  _handle: unknown;
}

/**
 * The socket `accepted` (from a server made with `pauseOnConnect`, so that nothing was read yet)
 * as a socket reading into the shared buffer, for `reads`: a new Socket on the same handle, as
 * net.Server itself makes them, but with `onread`, which Node offers to connecting sockets only.
 * `accepted` gives its handle away and is destroyed without closing it (its count in the server
 * ends with it; R66Listener counts its connections itself). Null when the handle cannot be taken
 * (another Node): the caller then reads `accepted` through its 'data' events.
 */
export function adoptAccepted(accepted: Socket, reads: SocketReads): Socket | null {
  const holder = accepted as unknown as AcceptedSocket;
  const handle = holder._handle;
  if (handle === null || typeof handle !== 'object') return null;
  let socket: Socket;
  try {
    socket = new Socket({ handle, readable: true, writable: true, onread: { buffer: readBuffer(), callback: reads.onRead } } as ConstructorParameters<typeof Socket>[0]);
  } catch {
    return null;
  }
  holder._handle = null;
  accepted.destroy();
  return socket;
}
