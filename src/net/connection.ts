/**
 * One R66 connection (TCP or TLS socket): frames the byte stream with the protocol's splitter,
 * multiplexes local channels (r66-protocol.md §3), answers KeepAlive at once and sends its own when
 * idle (§9.13), answers frames for unknown channels (§3.4), and closes itself on a framing error
 * with a ConnectionError (NOCHANNEL ids) or after a long idle time without channels (§1.4).
 *
 * It knows nothing of authentication or commands: a channel the peer opens is handed to
 * `onNewChannel`, which runs the conversation (see acceptor.ts).
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import { ErrorCode } from '../model/error-code.js';
import type { Notify } from '../model/notifications.js';
import { notifyUnknownChannel } from './alerts.js';
import {
  decodeFramePacket,
  DEFAULT_MAX_FRAME_LENGTH,
  encodeEnvelopeFrame,
  encodeFrame,
  encodeValidCommand,
  errorOfConnectionError,
  errorPacketOf,
  FrameSplitter,
  NOCHANNEL,
  PacketType,
  ProtocolError,
  UNKNOWN_LOCAL_CHANNEL_MESSAGE,
  type NetworkFrame,
  type Packet,
  type PacketParts,
} from '../protocol/index.js';
import type { BufferBudget } from './buffer-budget.js';
import { allocateChannelId } from './channel-ids.js';
import { LocalChannel } from './channel.js';
import { frameTrace } from './frame-trace.js';
import { R66Error } from '../model/r66-error.js';
import { disconnected } from './errors.js';
import type { AuthenticatedPartner } from './partner.js';
import type { RateLimitedLog } from './rate-log.js';
import type { SocketReads } from './socket-reads.js';

/** Unanswered KeepAlives after which an idle connection without channels is dropped (§9.13). */
const MAX_UNANSWERED_KEEPALIVES = 5;

/** A socket write callback running `written` only when the write succeeded. */
function afterWrite(written: (() => void) | undefined): ((err?: Error | null) => void) | undefined {
  return written === undefined ? undefined : (err) => {
    if (err == null) written();
  };
}

export interface ConnectionOptions {
  /** True on the TLS port / a TLS client connection: decides which host ids authenticate. */
  isTls: boolean;
  /** `timeoutcon`: idle period for KeepAlive, base of the idle close (2x). */
  timeoutConMs: number;
  /** Largest accepted frameLength; larger frames are refused before buffering. */
  maxFrameLength?: number;
  logger: Logger;
  /** Application notifications (NetContext.notify). */
  notify?: Notify | undefined;
  /** A channel the peer opened (first frame with dstId NOCHANNEL); its first packet follows. */
  onNewChannel?: (channel: LocalChannel) => void;
  /** The socket reads into the shared buffer (socket-reads.ts): its bytes come from here, not 'data'. */
  reads?: SocketReads;
  /**
   * Largest frame accepted before the peer authenticated (an accepted connection: the handshake
   * needs a few KiB); `maxFrameLength` applies from markAuthenticated() on.
   */
  handshakeFrameBytes?: number;
  /** The process's budget of bytes held in incomplete frames (buffer-budget.ts). */
  budget?: BufferBudget;
  /** Rate-limited warnings shared by the connections of a host (rate-log.ts). */
  warnings?: RateLimitedLog;
}

export class Connection extends EventEmitter {
  /** The partner this connection is authenticated with, for reuse on later channels (§6.6). */
  authenticatedPartner: AuthenticatedPartner | undefined;
  /** Host ids of the partner entries that authenticated on this connection (a per-partner close finds it by them). */
  readonly partnerIds = new Set<string>();
  /** True once any channel authenticated: an unauthenticated peer sending garbage is dropped. */
  private everAuthenticated = false;
  private readonly channels = new Map<number, LocalChannel>();
  private readonly splitter: FrameSplitter;
  private readonly log: Logger;
  private closing = false;
  private closeReason: Error | null = null;
  private drainWaiter: Promise<void> | null = null;
  private lastActivity = Date.now();
  /** Last time a channel existed: the idle close counts from here. */
  private lastUse = Date.now();
  private unansweredKeepAlives = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Bytes of this connection's incomplete frame as last accounted in the budget. */
  private held = 0;
  /** Resolves with the reason once the socket is closed. */
  readonly closed: Promise<Error>;

  constructor(
    readonly socket: Socket | TLSSocket,
    readonly options: ConnectionOptions,
  ) {
    super();
    this.log = options.logger.child({ peer: `${socket.remoteAddress}:${socket.remotePort}` });
    this.closed = new Promise((resolve) => this.once('closed', (reason: Error) => resolve(reason)));
    // The splitter copies frames out of what is read, data blocks into pooled frames: a shared read
    // buffer is overwritten by the next read, and a TLS socket's chunks, no longer held by the
    // blocks in them until those are written, die young instead of reaching the old generation.
    this.splitter = new FrameSplitter({ maxFrameLength: options.handshakeFrameBytes ?? options.maxFrameLength });
    const budget = options.budget;
    if (budget !== undefined) this.splitter.admit = (total) => budget.admit(total, this.held);
    const reads = options.reads;
    if (reads === undefined) socket.on('data', (chunk: Buffer) => this.onData(chunk));
    else reads.attach((chunk) => this.onData(chunk));
    socket.on('error', (err) => {
      this.log.debug({ err: err.message }, 'socket error');
      this.closeReason ??= disconnected(err.message);
    });
    socket.on('close', () => this.onClose());
    this.armIdleTimer();
  }

  /** True once any channel of this connection authenticated. */
  get authenticated(): boolean {
    return this.everAuthenticated;
  }

  /** Tells the budget what the splitter holds now. */
  private account(): void {
    const now = this.splitter.reservedBytes;
    if (now !== this.held) this.options.budget?.update(this.held, now);
    this.held = now;
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  get isClosing(): boolean {
    return this.closing || this.socket.destroyed;
  }

  get channelCount(): number {
    return this.channels.size;
  }

  /** Opens a channel of ours; its first frame goes with dstId NOCHANNEL (§3.2). */
  openChannel(): LocalChannel {
    if (this.isClosing) throw disconnected('connection is closing');
    const channel = new LocalChannel(this, allocateChannelId(), NOCHANNEL);
    this.channels.set(channel.localId, channel);
    this.lastUse = Date.now();
    return channel;
  }

  /** Called by LocalChannel.close(). */
  releaseChannel(channel: LocalChannel): void {
    if (this.channels.get(channel.localId) === channel) this.channels.delete(channel.localId);
    this.lastUse = Date.now();
  }

  /** Channels whose unread backlog is too long: while any, the socket is not read. */
  private readonly congested = new Set<LocalChannel>();

  /** True while reading is paused for a slow channel reader. */
  get isReadPaused(): boolean {
    return this.congested.size > 0;
  }

  pauseReading(channel: LocalChannel): void {
    this.congested.add(channel);
    this.socket.pause();
  }

  resumeReading(channel: LocalChannel): void {
    if (this.congested.delete(channel) && this.congested.size === 0 && !this.closing) this.socket.resume();
  }

  /** Marks the connection as having carried a successful authentication. */
  markAuthenticated(partner: AuthenticatedPartner, reusable: boolean): void {
    const first = !this.everAuthenticated;
    this.everAuthenticated = true;
    this.partnerIds.add(partner.host.hostId);
    this.splitter.maxFrameLength = this.options.maxFrameLength ?? DEFAULT_MAX_FRAME_LENGTH;
    if (reusable) this.authenticatedPartner = partner;
    // The listener's gate stops the authentication deadline and trusts the address (connection-gate.ts).
    if (first) this.emit('authenticated');
  }

  sendParts(dstId: number, srcId: number, parts: PacketParts): Promise<void> {
    return this.writeCommand(encodeEnvelopeFrame(dstId, srcId, parts));
  }

  sendPacket(dstId: number, srcId: number, packet: Packet): Promise<void> {
    return this.writeCommand(encodeFrame(dstId, srcId, packet));
  }

  /** True while the socket is corked for the commands of this turn of the event loop. */
  private corked = false;

  /**
   * A command frame (everything but the data path's blocks): the socket is corked until the end of
   * this turn of the event loop, so the answers that many channels produce in the same turn leave
   * in one system call (and wake the partner once) instead of one each.
   */
  private writeCommand(frame: Buffer): Promise<void> {
    if (!this.corked && !this.socket.destroyed) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    return this.writeFrame(frame);
  }

  /**
   * Writes one whole frame. Resolves when the socket took it without exceeding its high-water
   * mark, or after the next 'drain' otherwise, so a sender looping on await never buffers more than
   * one frame beyond the mark (design.md §5).
   */
  writeFrame(frame: Buffer, written?: () => void): Promise<void> {
    if (this.socket.destroyed || this.socket.writableEnded) return Promise.reject(this.closeReason ?? disconnected());
    this.lastActivity = Date.now();
    frameTrace?.sent(frame[12] as number);
    if (this.socket.write(frame, afterWrite(written))) return Promise.resolve();
    return this.whenDrained();
  }

  /**
   * Writes whole frames in one system call (the data path's blocks of one read batch). Like
   * writeFrame(), resolves at once when the socket stays under its high-water mark, else at 'drain'.
   * `written` runs once the socket has written every one of them (never when a write failed): from
   * then on their buffers are the caller's again.
   */
  writeFrames(frames: readonly Buffer[], written?: () => void): Promise<void> {
    if (frames.length === 1) return this.writeFrame(frames[0] as Buffer, written);
    if (this.socket.destroyed || this.socket.writableEnded) return Promise.reject(this.closeReason ?? disconnected());
    this.lastActivity = Date.now();
    frameTrace?.sent((frames[0] as Buffer)[12] as number, frames.length);
    this.socket.cork();
    let below = true;
    // Writes complete in order: the last one's callback comes after all of them were written.
    frames.forEach((f, i) => (below = this.socket.write(f, i === frames.length - 1 ? afterWrite(written) : undefined)));
    this.socket.uncork();
    return below ? Promise.resolve() : this.whenDrained();
  }

  private whenDrained(): Promise<void> {
    this.drainWaiter ??= new Promise<void>((resolve, reject) => {
      const done = (): void => {
        this.socket.off('drain', onDrain);
        this.socket.off('close', onClose);
        this.drainWaiter = null;
      };
      const onDrain = (): void => {
        done();
        resolve();
      };
      const onClose = (): void => {
        done();
        reject(this.closeReason ?? disconnected());
      };
      this.socket.on('drain', onDrain);
      this.socket.on('close', onClose);
    });
    return this.drainWaiter;
  }

  /**
   * Closes the connection: pending writes are flushed, then the socket ends (TLS sends
   * close_notify). Every channel fails with `reason`. Idempotent.
   */
  close(reason: Error = disconnected('connection closed locally')): void {
    if (this.closing) return;
    this.closing = true;
    this.closeReason ??= reason;
    this.stopIdleTimer();
    for (const ch of [...this.channels.values()]) ch.close(reason);
    this.socket.end();
    // A peer that never reads must not keep the socket half-open forever.
    const timer = setTimeout(() => this.socket.destroy(), this.options.timeoutConMs);
    timer.unref();
    this.socket.once('close', () => clearTimeout(timer));
  }

  /**
   * A stopping server's "Shutdown forced" notice (r66-protocol.md §9.12) on every channel still open
   * whose peer id is known: Valid("Shutdown forced", "", 8). Written before close(), which flushes
   * it. Transfers send their own first (with the receiver's rank) when the engine stops them.
   */
  notifyShutdown(): void {
    if (this.isClosing) return;
    for (const ch of this.channels.values()) {
      if (!ch.isNew) this.sendPacket(ch.remoteId, ch.localId, encodeValidCommand({ cmd: 'shutdownNotice', rank: null })).catch(() => undefined);
    }
  }

  /** Fatal protocol error: ConnectionError NOCHANNEL/NOCHANNEL, then close (§3.4). */
  fail(err: ProtocolError | Error): void {
    if (this.closing) return;
    const text = `${err.name} : ${err.message}`;
    if (this.options.warnings !== undefined) this.options.warnings.warn('protocol-error', { err: err.message, ip: this.socket.remoteAddress }, 'closing the connection after a protocol error');
    else this.log.warn({ err: err.message }, 'closing the connection after a protocol error');
    this.sendPacket(NOCHANNEL, NOCHANNEL, { kind: 'connectionError', message: text, middle: '' }).catch(() => undefined);
    this.close(new R66Error(R66Error.from(err, ErrorCode.RemoteError).code, text));
  }

  /**
   * Bytes read from the socket. Emits 'bytes' (no argument) for whoever waits for a sign of life
   * (answer-wait.ts): a socket reading into the shared buffer has no 'data' events.
   */
  private onData(chunk: Buffer): void {
    if (this.closing) return;
    this.lastActivity = Date.now();
    if (this.listenerCount('bytes') > 0) this.emit('bytes');
    let frames: NetworkFrame[];
    try {
      frames = this.splitter.push(chunk);
    } catch (err) {
      this.account();
      this.fail(err as Error);
      return;
    }
    this.account();
    for (const frame of frames) {
      if (this.closing) return;
      this.onFrame(frame);
    }
  }

  private onFrame(frame: NetworkFrame): void {
    frameTrace?.received(frame.code);
    this.unansweredKeepAlives = 0;
    if (frame.code === PacketType.NOOP) return;
    let packet: Packet;
    try {
      packet = decodeFramePacket(frame);
    } catch (err) {
      this.onBadPacket(frame, err as Error);
      return;
    }
    if (packet.kind === 'keepAlive') {
      if (packet.way === 0) this.sendPacket(NOCHANNEL, NOCHANNEL, { kind: 'keepAlive', way: 1 }).catch(() => undefined);
      return;
    }
    if (frame.dstId === NOCHANNEL) {
      this.onNoChannelFrame(frame, packet);
      return;
    }
    const channel = this.channels.get(frame.dstId);
    if (channel === undefined) {
      this.onUnknownChannel(frame);
      return;
    }
    if (channel.remoteId === NOCHANNEL) channel.remoteId = frame.srcId;
    if (packet.kind === 'connectionError') {
      // The peer dropped its side: the channel ends with the code in the middle (§3.4).
      channel.close(errorOfConnectionError(packet, true));
      return;
    }
    channel.deliver(packet);
  }

  private onNoChannelFrame(frame: NetworkFrame, packet: Packet): void {
    if (packet.kind === 'connectionError') {
      this.log.info({ message: packet.message }, 'ConnectionError from the peer');
      if (this.channels.size === 0) this.close(errorOfConnectionError(packet, false));
      return;
    }
    if (this.options.onNewChannel === undefined) {
      this.onUnknownChannel(frame);
      return;
    }
    const channel = new LocalChannel(this, allocateChannelId(), frame.srcId);
    this.channels.set(channel.localId, channel);
    this.lastUse = Date.now();
    this.options.onNewChannel(channel);
    channel.deliver(packet);
  }

  /** Frame for an id we do not (or no longer) have: ConnectionError back, except for 20 and 6. */
  private onUnknownChannel(frame: NetworkFrame): void {
    if (frame.code === PacketType.ENDREQUEST || frame.code === PacketType.CONNECTERROR) return;
    this.sendPacket(frame.srcId, frame.dstId, { kind: 'connectionError', message: UNKNOWN_LOCAL_CHANNEL_MESSAGE, middle: String(frame.dstId) }).catch(() => undefined);
    notifyUnknownChannel(this.options.notify, frame.code);
  }

  /**
   * A well-framed packet that does not decode. The stream is still in step, so on an
   * authenticated connection only the channel ends (Error `R`, as a Java host answers, packets
   * §14.1); a peer that never authenticated gets no second chance: the connection is dropped.
   */
  private onBadPacket(frame: NetworkFrame, err: Error): void {
    if (!this.everAuthenticated) {
      this.fail(err);
      return;
    }
    // The ErrorCode a ProtocolError carries (usually `R`), `R` for anything else.
    const failure = R66Error.from(err, ErrorCode.RemoteError);
    const channel = frame.dstId === NOCHANNEL ? undefined : this.channels.get(frame.dstId);
    const dst = frame.srcId;
    const src = channel?.localId ?? frame.dstId;
    if (this.options.warnings !== undefined) this.options.warnings.warn('undecodable', { err: err.message, code: frame.code, ip: this.socket.remoteAddress }, 'undecodable packet');
    else this.log.warn({ err: err.message, code: frame.code }, 'undecodable packet');
    this.sendPacket(dst, src, errorPacketOf(failure)).catch(() => undefined);
    channel?.close(failure);
  }

  private armIdleTimer(): void {
    const period = this.options.timeoutConMs;
    if (!(period > 0)) return;
    this.idleTimer = setTimeout(() => this.onIdleCheck(), period);
    this.idleTimer.unref();
  }

  private stopIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** Runs every timeoutcon: idle close, or a KeepAlive when nothing moved for a whole period. */
  private onIdleCheck(): void {
    if (this.closing) return;
    const now = Date.now();
    const period = this.options.timeoutConMs;
    if (this.channels.size > 0) this.lastUse = now;
    if (this.channels.size === 0 && now - this.lastUse >= 2 * period) {
      this.close(disconnected('idle connection closed'));
      return;
    }
    if (now - this.lastActivity >= period) {
      if (this.unansweredKeepAlives >= MAX_UNANSWERED_KEEPALIVES && this.channels.size === 0) {
        this.options.notify?.('warning', 'KeepAlive get no answer', this.authenticatedPartner?.hostId ?? this.socket.remoteAddress ?? '');
        this.close(disconnected('no answer to KeepAlive'));
        return;
      }
      this.unansweredKeepAlives++;
      this.sendPacket(NOCHANNEL, NOCHANNEL, { kind: 'keepAlive', way: 0 }).catch(() => undefined);
    }
    this.armIdleTimer();
  }

  private onClose(): void {
    this.closing = true;
    this.stopIdleTimer();
    // The frame in progress goes back now, not when the last reference to this object dies.
    this.splitter.release();
    this.account();
    const reason = this.closeReason ?? disconnected();
    this.closeReason = reason;
    for (const ch of [...this.channels.values()]) ch.close(reason);
    this.emit('closed', reason);
  }
}
