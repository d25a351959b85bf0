/**
 * One local channel (r66-protocol.md §3): a conversation multiplexed on a Connection, identified by
 * our id and the peer's. Conversation code sends packets and awaits the next one with receive();
 * packets that arrive before anyone waits are queued in order.
 */
import { NOCHANNEL, type Packet, type PacketParts } from '../protocol/index.js';
import { disconnected, timedOut } from './errors.js';
import type { Connection } from './connection.js';
import type { AuthenticatedPartner } from './partner.js';

/**
 * Packets queued on a channel before its reader takes them: above HIGH the connection stops reading
 * the socket (TCP then slows the sender, as the original's one-frame-at-a-time reading does), below
 * LOW it reads again. Bounds memory when a receiver writes slower than the network delivers.
 */
const QUEUE_HIGH = 32;
const QUEUE_LOW = 8;

interface Waiter {
  resolve(p: Packet): void;
  reject(e: Error): void;
}

export class LocalChannel {
  /** The peer's id; NOCHANNEL until its first frame on this channel arrives. */
  remoteId: number;
  /** Set once the channel (or its connection, with reuse) is authenticated. */
  partner: AuthenticatedPartner | undefined;
  private readonly queue: Packet[] = [];
  private readonly waiters: Waiter[] = [];
  private ended: Error | null = null;
  private closedFlag = false;

  constructor(
    readonly connection: Connection,
    readonly localId: number,
    remoteId: number,
  ) {
    this.remoteId = remoteId;
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  /** Packets that arrived and wait to be received: receive() returns the first at once. */
  get queuedPackets(): number {
    return this.queue.length;
  }

  /**
   * Why the channel ended (null while open): an R66Error `fromPartner` when the peer ended it (its Error or
   * ConnectionError), a Disconnection when the connection went, else a local end.
   */
  get closeReason(): Error | null {
    return this.closedFlag ? this.endError() : null;
  }

  /** Why the channel ended; a local close without a reason reads as a local Disconnection. */
  private endError(): Error {
    return (this.ended ??= disconnected('local channel closed'));
  }

  /** Sends a packet; resolves once the socket accepted it (waits for drain under back-pressure). */
  send(packet: Packet): Promise<void> {
    if (this.closedFlag) return Promise.reject(this.endError());
    return this.connection.sendPacket(this.remoteId, this.localId, packet);
  }

  /** Sends already encoded parts (one allocation for the whole frame). */
  sendParts(parts: PacketParts): Promise<void> {
    if (this.closedFlag) return Promise.reject(this.endError());
    return this.connection.sendParts(this.remoteId, this.localId, parts);
  }

  /**
   * Sends a frame the caller built whole (header written in place with protocol's frame helpers,
   * ids from `remoteId`/`localId`): the data path uses this to avoid copying blocks.
   */
  sendFrame(frame: Buffer): Promise<void> {
    if (this.closedFlag) return Promise.reject(this.endError());
    return this.connection.writeFrame(frame);
  }

  /**
   * sendFrame() for several frames in one write; `written` runs once the socket wrote them all
   * (see Connection.writeFrames()).
   */
  sendFrames(frames: readonly Buffer[], written?: () => void): Promise<void> {
    if (this.closedFlag) return Promise.reject(this.endError());
    return this.connection.writeFrames(frames, written);
  }

  /** The next packet of this channel; rejects when the channel ends first or after `timeoutMs`. */
  receive(timeoutMs?: number, what = 'the partner'): Promise<Packet> {
    const queued = this.queue.shift();
    if (queued !== undefined) {
      if (this.queue.length === QUEUE_LOW) this.connection.resumeReading(this);
      return Promise.resolve(queued);
    }
    if (this.closedFlag) return Promise.reject(this.endError());
    return new Promise<Packet>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        resolve: (p) => {
          if (timer) clearTimeout(timer);
          resolve(p);
        },
        reject: (e) => {
          if (timer) clearTimeout(timer);
          reject(e);
        },
      };
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(timedOut(what, timeoutMs));
        }, timeoutMs);
      }
      this.waiters.push(waiter);
    });
  }

  /** Called by the Connection for each decoded packet addressed to this channel. */
  deliver(packet: Packet): void {
    if (this.closedFlag) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter.resolve(packet);
      return;
    }
    this.queue.push(packet);
    if (this.queue.length === QUEUE_HIGH) this.connection.pauseReading(this);
  }

  /**
   * Ends the channel (conversation over, peer's ConnectionError, connection gone): pending and
   * later receive() calls fail with `reason` once the packets already queued are read, and the id
   * is released on the connection. Idempotent. Nothing is sent: the peer is not told (there is no
   * close packet, r66-protocol.md §3.3); a side that ends a conversation the peer still waits on
   * sends an Error first (see acceptor.ts endChannel()).
   */
  close(reason?: Error): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    // The default reason is built only when someone reads it (an Error's stack costs, and almost
    // every conversation ends with a plain close nobody waits on).
    this.ended = reason ?? null;
    for (const w of this.waiters.splice(0)) w.reject(this.endError());
    this.connection.resumeReading(this);
    this.connection.releaseChannel(this);
  }

  /** True when the ids have not been learned yet (first frame of an opener). */
  get isNew(): boolean {
    return this.remoteId === NOCHANNEL;
  }
}
