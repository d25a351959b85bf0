/**
 * The commands a host answers on a channel opened by a partner, by the kind of the first packet
 * after authentication (r66-protocol.md §9.14), and for Valid and JsonCommand by their sub-kind. The
 * table is filled by one composition function (src/server/components.ts composeR66Handlers) for a
 * server, by the transfer engine for a client; this module only dispatches.
 */
import type { Logger } from 'pino';
import { ErrorCode } from '../model/error-code.js';
import type { Packet, PacketKind } from '../protocol/index.js';
import type { LocalChannel } from './channel.js';
import { R66Error } from '../model/r66-error.js';
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

/** One row of the handler table: who answers conversations starting with `kind`, for which sub-kinds. */
export interface HandlerRow {
  kind: PacketKind;
  /** The Valid or JsonCommand sub-kinds (PacketType) the row answers; `rest`: every other one (or a kind without sub-kinds). */
  subKinds: readonly number[] | 'rest';
  /** Who registered it (for the table's description and its test). */
  name: string;
}

interface Entry {
  handler: RequestHandler;
  name: string;
}

/**
 * The one table of which handler answers which request kind and sub-kind (issue 20 item 5). A
 * conversation goes to the row of its first packet's kind and, for Valid and JsonCommand, of its
 * sub-kind; a sub-kind no row names goes to the kind's row for the rest. Handlers never wrap one
 * another: a module registers the sub-kinds it answers, and is given the kind's handler for the rest
 * (restOf()) when it must pass on a packet of its sub-kind that it does not take (a JSON class that
 * is not its own).
 */
export class RequestHandlers {
  private readonly rest = new Map<PacketKind, Entry>();
  private readonly bySubKind = new Map<PacketKind, Map<number, Entry>>();

  /** Registers (or replaces) the handler for conversations starting with a `kind` packet (its sub-kinds no other row names). */
  register<K extends PacketKind>(kind: K, handler: RequestHandler<K>, name: string = kind): this {
    this.rest.set(kind, { handler: handler as unknown as RequestHandler, name });
    return this;
  }

  /** Registers `handler` only when nothing handles `kind` yet (built-in defaults). */
  registerDefault<K extends PacketKind>(kind: K, handler: RequestHandler<K>, name: string = kind): this {
    if (!this.rest.has(kind)) this.register(kind, handler, name);
    return this;
  }

  /**
   * Registers the handler of these sub-kinds of Valid or JsonCommand conversations. A sub-kind
   * another module (another `name`) answers already is refused: two modules never share one.
   */
  registerSubKinds<K extends 'valid' | 'jsonCommand'>(kind: K, subKinds: Iterable<number>, handler: RequestHandler<K>, name: string): this {
    let rows = this.bySubKind.get(kind);
    if (rows === undefined) this.bySubKind.set(kind, (rows = new Map()));
    const subs = [...subKinds];
    for (const sub of subs) {
      const owner = rows.get(sub)?.name;
      if (owner !== undefined && owner !== name) throw new Error(`${kind} sub-kind ${sub} is answered by ${owner} already (not by ${name})`);
    }
    for (const sub of subs) rows.set(sub, { handler: handler as unknown as RequestHandler, name });
    return this;
  }

  /** The handler of a conversation starting with a `kind` packet (by its sub-kind), or undefined. */
  get(kind: PacketKind): RequestHandler | undefined {
    const rows = this.bySubKind.get(kind);
    if (rows === undefined || rows.size === 0) return this.rest.get(kind)?.handler;
    return async (ctx, packet) => {
      const sub = (packet as { subType?: unknown }).subType;
      const entry = (typeof sub === 'number' ? rows.get(sub) : undefined) ?? this.rest.get(kind);
      if (entry === undefined) throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: ${kind} ${String(sub)}`);
      return entry.handler(ctx, packet);
    };
  }

  /**
   * The kind's handler for the sub-kinds no row names, looked up when called (it may be registered
   * later); Unimplemented when there is none.
   */
  restOf(kind: PacketKind): RequestHandler {
    return async (ctx, packet) => {
      const entry = this.rest.get(kind);
      if (entry === undefined) throw new R66Error(ErrorCode.Unimplemented, `Unimplemented command: ${kind} ${String((packet as { subType?: unknown }).subType ?? '')}`.trimEnd());
      return entry.handler(ctx, packet);
    };
  }

  /** The table, kind by kind: the sub-kind rows, then the kind's row for the rest. */
  table(): HandlerRow[] {
    const kinds = new Set<PacketKind>([...this.bySubKind.keys(), ...this.rest.keys()]);
    const rows: HandlerRow[] = [];
    for (const kind of kinds) {
      const byName = new Map<string, number[]>();
      for (const [sub, e] of this.bySubKind.get(kind) ?? []) byName.set(e.name, [...(byName.get(e.name) ?? []), sub]);
      for (const [name, subs] of byName) rows.push({ kind, subKinds: subs.sort((a, b) => a - b), name });
      const rest = this.rest.get(kind);
      if (rest !== undefined) rows.push({ kind, subKinds: 'rest', name: rest.name });
    }
    return rows;
  }
}
