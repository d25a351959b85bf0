/**
 * The notifier of the running SNMP agent, for the code that sends notifications without owning
 * the agent (the SNMP task, shutdown and refusal paths). Kept free of net-snmp so that loading the
 * task registry (clients too) does not load the SNMP library.
 */
import type { SnmpNotifier } from './notifier.js';

let current: SnmpNotifier | undefined;

/** The notifier of the running SNMP agent, if any. */
export function currentSnmpNotifier(): SnmpNotifier | undefined {
  return current;
}

/** Set by the agent at start, cleared at stop (only if it is still the one set). */
export function setSnmpNotifier(notifier: SnmpNotifier | undefined, previous?: SnmpNotifier): void {
  if (notifier === undefined && current !== previous) return;
  current = notifier;
}
