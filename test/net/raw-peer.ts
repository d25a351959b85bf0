/** A hand-driven R66 peer on a raw socket: writes exact bytes, reads decoded frames in order. */
import { connect, type Socket } from 'node:net';
import { decodeFramePacket, FrameSplitter, type NetworkFrame, type Packet } from '../../src/protocol/index.js';

export interface ReceivedFrame {
  frame: NetworkFrame;
  packet: Packet;
  raw: Buffer;
}

export class RawPeer {
  private readonly splitter = new FrameSplitter();
  private readonly queue: ReceivedFrame[] = [];
  private readonly waiters: Array<(f: ReceivedFrame | null) => void> = [];
  private ended = false;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const frame of this.splitter.push(chunk)) {
        const raw = Buffer.concat([Buffer.from([0, 0, 0, 0]), Buffer.alloc(9), frame.localPacket]);
        raw.writeInt32BE(frame.localPacket.length + 9, 0);
        raw.writeInt32BE(frame.dstId, 4);
        raw.writeInt32BE(frame.srcId, 8);
        raw[12] = frame.code;
        const item = { frame, packet: decodeFramePacket(frame), raw };
        const w = this.waiters.shift();
        if (w) w(item);
        else this.queue.push(item);
      }
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.ended = true;
        for (const w of this.waiters.splice(0)) w(null);
        resolve();
      }),
    );
  }

  static open(port: number): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port }, () => resolve(new RawPeer(s)));
      s.once('error', reject);
    });
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next frame, or null when the connection closed first. */
  next(): Promise<ReceivedFrame | null> {
    const q = this.queue.shift();
    if (q) return Promise.resolve(q);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  destroy(): void {
    this.socket.destroy();
  }
}
