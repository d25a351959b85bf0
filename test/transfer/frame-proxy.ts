/**
 * A TCP proxy between two hosts that reads the R66 frames passing through, for tests of lost
 * answers: it can go silent in both directions after a given frame (a partner that froze, or a
 * network that dropped without any FIN or RST: the sockets stay open, nothing arrives), or hold
 * back the channel frames of one direction until released (KeepAlives still pass). It counts the frames it saw by direction.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { FrameSplitter, PacketType, type NetworkFrame } from '../../src/protocol/index.js';

export type Direction = 'toPartner' | 'fromPartner';

function rawFrame(frame: NetworkFrame): Buffer {
  const head = Buffer.alloc(13);
  head.writeInt32BE(frame.localPacket.length + 9, 0);
  head.writeInt32BE(frame.dstId, 4);
  head.writeInt32BE(frame.srcId, 8);
  head[12] = frame.code;
  return Buffer.concat([head, frame.localPacket]);
}

export class FrameProxy {
  /** Frame codes seen, by direction, in order (also those swallowed by the silence). */
  readonly seen: Record<Direction, number[]> = { toPartner: [], fromPartner: [] };
  /**
   * After a frame matching this passes, nothing more goes through either way on that connection
   * (one-shot: later connections pass again).
   */
  silenceAfter: ((dir: Direction, frame: NetworkFrame) => boolean) | null = null;
  /** Frames of a direction matching this (and all after them in that direction) wait for release(). */
  holdFrom: ((dir: Direction, frame: NetworkFrame) => boolean) | null = null;
  private readonly held: Array<{ to: Socket; bytes: Buffer }> = [];
  private holding: Direction | null = null;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly targetPort: number,
  ) {
    server.on('connection', (client) => this.pipe(client));
  }

  static async start(targetPort: number): Promise<FrameProxy> {
    const server = createServer();
    const proxy = new FrameProxy(server, targetPort);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Lets the held frames (and the later ones) through. */
  release(): void {
    this.holding = null;
    this.holdFrom = null;
    for (const h of this.held.splice(0)) h.to.write(h.bytes);
  }

  private pipe(client: Socket): void {
    const upstream = connect({ host: '127.0.0.1', port: this.targetPort });
    const state = { silent: false };
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        // A real close on one side is passed on (only silence is simulated).
        if (!state.silent) (s === client ? upstream : client).destroy();
      });
    }
    this.forward('toPartner', client, upstream, state);
    this.forward('fromPartner', upstream, client, state);
  }

  private forward(dir: Direction, from: Socket, to: Socket, state: { silent: boolean }): void {
    const splitter = new FrameSplitter();
    from.on('data', (chunk: Buffer) => {
      for (const frame of splitter.push(chunk)) {
        this.seen[dir].push(frame.code);
        if (state.silent) continue;
        const bytes = rawFrame(frame);
        // Connection-level frames (KeepAlive) are never held: only the channels' answers are late.
        const held = frame.code !== PacketType.KEEPALIVE && (this.holding === dir || (this.holding === null && this.holdFrom?.(dir, frame) === true));
        if (held) {
          this.holding = dir;
          this.held.push({ to, bytes });
          continue;
        }
        to.write(bytes);
        if (this.silenceAfter?.(dir, frame)) {
          state.silent = true;
          this.silenceAfter = null;
        }
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
