/**
 * The notification hub of a running server: one per ServerRuntime (src/server/runtime.ts), handed
 * down at composition to the code that sends notifications without owning the agent (the R66
 * network, the engine, the SNMP task, the administration orders, REST and the web pages). The SNMP
 * agent attaches its notifier at start and detaches it at stop. No module state: two runtimes in
 * one process (tests) have two hubs. Kept free of net-snmp so that loading it does not load the
 * SNMP library.
 */
import type { Notify } from '../../model/notifications.js';
import type { SnmpNotifier } from './notifier.js';

/** The same notification is sent at most once per this interval (ms). */
const REPEAT_MS = 1000;

export class NotificationHub {
  private current: SnmpNotifier | undefined;
  /** When each recent notification went out, by kind, message and detail. */
  private readonly recent = new Map<string, number>();

  /** The notifier of the running SNMP agent, if any. */
  get notifier(): SnmpNotifier | undefined {
    return this.current;
  }

  /** Set by the agent at start, cleared at stop (only if it is still the one set). */
  attach(notifier: SnmpNotifier | undefined, previous?: SnmpNotifier): void {
    if (notifier === undefined && this.current !== previous) return;
    this.current = notifier;
    this.recent.clear();
  }

  /**
   * An application notification (monitoring.md §B.5) from code outside the agent, sent in the
   * background when an agent runs: never waits, never throws. An identical notification within a
   * second is dropped, so a peer that floods the listener cannot turn each of its sockets into a
   * datagram to every target. A bound function: it is handed down as a Notify.
   */
  readonly notify: Notify = (kind, message, detail) => {
    const notifier = this.current;
    if (notifier === undefined) return;
    const now = Date.now();
    const key = `${kind}\n${message}\n${detail}`;
    const last = this.recent.get(key);
    if (last !== undefined && now - last < REPEAT_MS) return;
    if (this.recent.size >= 1000) {
      for (const [k, at] of this.recent) if (now - at >= REPEAT_MS) this.recent.delete(k);
      // A thousand different ones within a second: the rest of this second's go unsent.
      if (this.recent.size >= 1000) return;
    }
    this.recent.set(key, now);
    // The notifier logs its own delivery failures.
    notifier.notify(kind, message, detail).catch(() => undefined);
  };
}
