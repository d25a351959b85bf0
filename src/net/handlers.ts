/**
 * The commands a host answers on a channel opened by a partner, by the kind of the first packet
 * after authentication (r66-protocol.md §9.14). The transfer engine and the admin commands register
 * theirs here; this module only dispatches.
 */
import type { Logger } from 'pino';
import type { Packet, PacketKind } from '../protocol/index.js';
import type { LocalChannel } from './channel.js';
import type { AuthenticatedPartner } from './partner.js';

/** What a handler gets besides the packet. */
export interface RequestContext {
  channel: LocalChannel;
  partner: AuthenticatedPartner;
  /** This host's id on this connection (its SSL host id on TLS). */
  ownHostId: string;
  /** `timeoutcon`, for waits inside the conversation. */
  timeoutConMs: number;
  logger: Logger;
}

/**
 * Runs one conversation. It may send and receive on the channel; when it returns (or throws) the
 * channel is closed. A thrown R66Error is answered with an Error packet carrying its code.
 */
export type RequestHandler<K extends PacketKind = PacketKind> = (ctx: RequestContext, packet: Extract<Packet, { kind: K }>) => Promise<void>;

export class RequestHandlers {
  private readonly byKind = new Map<PacketKind, RequestHandler>();

  /** Registers (or replaces) the handler for conversations starting with a `kind` packet. */
  register<K extends PacketKind>(kind: K, handler: RequestHandler<K>): this {
    this.byKind.set(kind, handler as unknown as RequestHandler);
    return this;
  }

  /** Registers `handler` only when nothing handles `kind` yet (built-in defaults). */
  registerDefault<K extends PacketKind>(kind: K, handler: RequestHandler<K>): this {
    if (!this.byKind.has(kind)) this.register(kind, handler);
    return this;
  }

  get(kind: PacketKind): RequestHandler | undefined {
    return this.byKind.get(kind);
  }
}
