/**
 * What the web areas use from the running host: the same services as REST (store, configuration,
 * bandwidth, transfer control, request blocking, shutdown, FileWatcher reports), the engine's
 * events for live rows, and the R66 connection test and close of the Hosts page.
 */
import type { RestServices } from '../http/context.js';
import type { Lang } from './i18n.js';
import type { TransferEvents } from './live.js';

export interface WebServices {
  rest: RestServices;
  /** The running engine's events; undefined when no engine runs (rows are then not live). */
  events(): TransferEvents | undefined;
  /** Sends the R66 test message to a partner; resolves to the answer text, rejects with a clear message. */
  testConnection?(hostId: string): Promise<string>;
  /**
   * The server's language (System › Language › `changesys`): the web pages' language for a viewer
   * who chose none (no `setLng`, no `i18next` cookie), in both areas; English until changed, kept
   * in memory.
   */
  serverLang: { value: Lang };
  /** Closes the R66 connections to and from a partner (Hosts › CloseConn); resolves with how many. */
  closeConnections?(hostId: string): Promise<number>;
}
