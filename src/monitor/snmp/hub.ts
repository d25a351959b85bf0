/**
 * The notifier of the running SNMP agent, for the code that sends notifications without owning
 * the agent (the SNMP task, shutdown and refusal paths). Kept free of net-snmp so that loading the
 * task registry (clients too) does not load the SNMP library.
 */
import type { NotificationKind, SnmpNotifier } from './notifier.js';

let current: SnmpNotifier | undefined;

/** The notifier of the running SNMP agent, if any. */
export function currentSnmpNotifier(): SnmpNotifier | undefined {
  return current;
}

/** Set by the agent at start, cleared at stop (only if it is still the one set). */
export function setSnmpNotifier(notifier: SnmpNotifier | undefined, previous?: SnmpNotifier): void {
  if (notifier === undefined && current !== previous) return;
  current = notifier;
  recent.clear();
}

/** The same notification is sent at most once per this interval (ms). */
const REPEAT_MS = 1000;
/** When each recent notification went out, by kind, message and detail. */
const recent = new Map<string, number>();

/**
 * An application notification (monitoring.md §B.5) from code outside the transfer engine (the R66
 * listener, authentication, administration orders), sent in the background when an agent runs:
 * never waits, never throws. An identical notification within a second is dropped, so a peer that
 * floods the listener cannot turn each of its sockets into a datagram to every target.
 */
export function notifySnmp(kind: NotificationKind, message: string, detail: string): void {
  const notifier = current;
  if (notifier === undefined) return;
  const now = Date.now();
  const key = `${kind}\n${message}\n${detail}`;
  const last = recent.get(key);
  if (last !== undefined && now - last < REPEAT_MS) return;
  if (recent.size >= 1000) {
    for (const [k, at] of recent) if (now - at >= REPEAT_MS) recent.delete(k);
    // A thousand different ones within a second: the rest of this second's go unsent.
    if (recent.size >= 1000) return;
  }
  recent.set(key, now);
  // The notifier logs its own delivery failures.
  notifier.notify(kind, message, detail).catch(() => undefined);
}
