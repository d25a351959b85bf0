/**
 * Idle sockets from many loopback source addresses (127.0.0.x: Linux routes all of 127.0.0.0/8 to
 * lo), optionally reconnecting as soon as the server closes them: the flood of issue 32.
 */
import { connect, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { waitFor } from '../helpers/wait.js';

/** `count` loopback addresses from 127.0.0.`first` on (staying within 127.0.x.y). */
export function loopbackAddresses(count: number, first = 2): string[] {
  return Array.from({ length: count }, (_, i) => {
    const n = first + i;
    return `127.0.${Math.floor(n / 250)}.${(n % 250) + 1}`;
  });
}

export class IdleFlood {
  private readonly sockets = new Set<Socket>();
  private stopped = false;
  /** Sockets opened so far (reconnections included). */
  opened = 0;

  constructor(
    private readonly port: number,
    private readonly addresses: string[],
    private readonly perAddress: number,
    private readonly reconnect: boolean,
    /** Pause before a reconnection (0: at once); far below any deadline, so the slots stay taken. */
    private readonly reconnectDelayMs = 0,
  ) {}

  start(): this {
    for (const address of this.addresses) for (let i = 0; i < this.perAddress; i++) this.open(address);
    return this;
  }

  /** Sockets open now (from this side). */
  get openNow(): number {
    return this.sockets.size;
  }

  private open(address: string): void {
    if (this.stopped) return;
    const s = connect({ host: '127.0.0.1', port: this.port, localAddress: address });
    this.opened++;
    s.on('error', () => undefined);
    this.sockets.add(s);
    s.once('close', () => {
      this.sockets.delete(s);
      if (this.reconnect && !this.stopped) {
        if (this.reconnectDelayMs > 0) setTimeout(() => this.open(address), this.reconnectDelayMs);
        else setImmediate(() => this.open(address));
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const s of this.sockets) s.destroy();
    await waitFor(() => this.sockets.size === 0, { what: 'the flood closed' });
  }
}

/** A logger keeping its lines (level, fields, message) for assertions. */
export function captureLogger(): { logger: Logger; lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> } {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown> | string, msg?: string) => {
    if (typeof fields === 'string') lines.push({ level, fields: {}, msg: fields });
    else lines.push({ level, fields, msg: msg ?? '' });
  };
  const logger = { warn: at('warn'), info: at('info'), error: at('error'), debug: () => undefined, trace: () => undefined } as unknown as Logger;
  (logger as unknown as { child: () => Logger }).child = () => logger;
  return { logger, lines };
}
