/**
 * Application notifications (monitoring.md §B.5) as the layers below monitoring see them: they
 * name an event, monitoring (the SNMP agent, src/monitor/snmp) decides where it goes. The sender
 * is handed down from src/server at composition (design.md §1): no module of net, tasks or
 * transfer imports monitoring. Types only.
 */
import type { TransferRecord } from './transfer.js';

/** The kinds of application notification (`…66.5.1.<k>`: TrapShutdown, TrapError, TrapWarning, TrapOverloaded). */
export type NotificationKind = 'startOrShutdown' | 'error' | 'warning' | 'overloaded';

/**
 * Sends an application notification in the background when an agent runs: never waits, never
 * throws, drops an identical one repeated within a second.
 */
export type Notify = (kind: NotificationKind, message: string, detail: string) => void;

/** What an info-task notification shows of a transfer (the SNMP task knows fewer fields than a record). */
export type InfoTaskFields = Pick<TransferRecord, 'specialId' | 'requester' | 'requested' | 'idRule' | 'mode' | 'rank' | 'filename' | 'originalName' | 'start' | 'infoStatus'>
  & Partial<Pick<TransferRecord, 'globalLastStep' | 'step' | 'stepStatus' | 'retrieveMode'>>;

/** The running agent's notifier as the SNMP task uses it (it waits for the sending). */
export interface NotificationSender {
  notify(kind: NotificationKind, message: string, detail: string): Promise<void>;
  infoTask(message: string, fields: InfoTaskFields, force?: boolean): Promise<void>;
}
