/**
 * The original's warning notifications for administration orders other than shutdown
 * (monitoring.md §B.5): configuration import/export, purge, bandwidth change, block/unblock. One
 * call per order at the place that runs it (REST v1/v2, the R66 export orders, the web pages), the
 * requesting user as the detail. Sent in the background through the Notify the caller was handed
 * (the server's NotificationHub, hub.ts: never waits, never throws); none given, nothing is sent.
 */
import type { Notify } from '../../model/notifications.js';

const ORDER_TEXT = {
  import: 'Import Configuration Order received',
  export: 'Export Configuration Order received',
  purge: 'Purge Log Order received',
  block: 'Block Order received',
  unblock: 'Unblock Order received',
} as const;
export type AdminOrder = keyof typeof ORDER_TEXT;

/** An administration order was accepted from `user`. */
export function notifyOrder(notify: Notify | undefined, order: AdminOrder, user: string | undefined): void {
  notify?.('warning', ORDER_TEXT[order], user ?? '');
}

/** Block (true) or unblock (false) of new requests, ordered by `user`. */
export function notifyBlockOrder(notify: Notify | undefined, block: boolean, user: string | undefined): void {
  notifyOrder(notify, block ? 'block' : 'unblock', user);
}

/** The bandwidth limits now in force (bytes/s, 0 = none), after a change ordered by `user`. */
export function notifyBandwidthOrder(notify: Notify | undefined, l: { writeGlobal: number; readGlobal: number; writeSession: number; readSession: number }, user: string | undefined): void {
  notify?.('warning', `Change Bandwidth Limit Order received: Global ${l.writeGlobal}:${l.readGlobal} (W:R) Local ${l.writeSession}:${l.readSession} (W:R)`, user ?? '');
}
