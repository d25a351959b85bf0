/**
 * How a watcher gives its transfer orders (filewatcher.md §3.3): a TOSUBMIT row for the local
 * server's scheduler (`TransferOrders.submit`), or a transfer run now by this process
 * (`TransferOrders.sendNow`), through the one service for transfer orders (src/operations,
 * docs/decisions one transfer pipeline). The watcher only sees the WatchOrders interface.
 *
 * Every order carries a transfer id chosen (and written to the state file) before the order is
 * given, so an order interrupted by a crash is recognised and never given twice (docs/decisions,
 * FileWatcher exactly once): the service takes that id (`TransferOrder.id`).
 */
import { ErrorCode } from '../model/error-code.js';
import { R66Error } from '../model/r66-error.js';
import type { TransferKey } from '../model/transfer.js';
import type { TransferOrder, TransferOrders } from '../operations/index.js';
import type { RunnerRepository } from '../store/index.js';
import { isFinished } from '../transfer/state.js';

export interface OrderRequest {
  to: string;
  rule: string;
  /** Absolute path of the local file. */
  file: string;
  id: bigint;
  info: string;
  noFollow: boolean;
  md5: boolean;
  blockSize: number;
  /** Direct mode: delete the local record after success (`nolog`), once the state file says so. */
  noLog: boolean;
}

export interface OrderResult {
  ok: boolean;
  message: string;
  /** The partner could not be reached (logged at INFO when logWarn is false). */
  connection: boolean;
}

/** What this host's database knows of an order: never written, finished (or submitted), or open. */
export type OrderState = 'none' | 'done' | 'open';

export interface WatchOrders {
  newIds(n: number): Promise<bigint[]>;
  state(to: string, id: bigint, submit: boolean): Promise<OrderState>;
  /** Writes the TOSUBMIT row; ok once it is written. */
  submit(req: OrderRequest): Promise<OrderResult>;
  /** Runs the transfer (a restart when the row exists) and waits for its end. */
  run(req: OrderRequest): Promise<OrderResult>;
  /** `nolog`: forget the local records of these finished direct transfers. */
  forget(orders: ReadonlyArray<{ to: string; id: bigint }>): Promise<void>;
  close(): Promise<void>;
}

export interface ServiceOrdersOptions {
  /** The one order service of this process (its `live` engine runs the direct transfers). */
  service: TransferOrders;
  /** The ids taken beforehand, and the local rows read (state); `nolog` forgets them through the service. */
  store: { nextTransferIds(n: number): Promise<bigint[]>; runner: Pick<RunnerRepository, 'get'> };
  /** The partner's real id (aliases resolved). */
  realHostId(id: string): string;
  /** Starts the service's live engine before the first direct transfer (once). */
  startEngine?(): Promise<void>;
  /** Stops what startEngine() started. */
  stopEngine?(): Promise<void>;
}

function order(r: OrderRequest, to: string): TransferOrder {
  return { partner: to, rule: r.rule, file: r.file, id: r.id, md5: r.md5, blockSize: r.blockSize, fileInfo: r.info, noFollow: r.noFollow };
}

function failed(err: unknown): OrderResult {
  const e = R66Error.from(err);
  return { ok: false, message: `${e.code.name}: ${e.message}`, connection: e.code === ErrorCode.ConnectionImpossible };
}

export class ServiceOrders implements WatchOrders {
  private engineStarted: Promise<void> | undefined;

  constructor(private readonly opts: ServiceOrdersOptions) {}

  newIds(n: number): Promise<bigint[]> {
    return this.opts.store.nextTransferIds(n);
  }

  /** The local row's key, or undefined for a partner this host does not know (nothing written). */
  private async key(to: string, id: bigint): Promise<TransferKey | undefined> {
    try {
      return await this.opts.service.keyFor(this.opts.realHostId(to), id);
    } catch (err) {
      if (err instanceof R66Error && err.code === ErrorCode.NotKnownHost) return undefined;
      throw err;
    }
  }

  async state(to: string, id: bigint, submit: boolean): Promise<OrderState> {
    const key = await this.key(to, id);
    const row = key === undefined ? undefined : await this.opts.store.runner.get(key);
    if (row === undefined) return 'none';
    // A submitted row is the scheduler's from then on: written is done for the watcher.
    if (submit) return 'done';
    return isFinished(row) ? 'done' : 'open';
  }

  async submit(r: OrderRequest): Promise<OrderResult> {
    try {
      await this.opts.service.submit(order(r, this.opts.realHostId(r.to)));
      return { ok: true, message: '', connection: false };
    } catch (err) {
      return failed(err);
    }
  }

  async run(r: OrderRequest): Promise<OrderResult> {
    try {
      await this.startEngine();
      const outcome = await this.opts.service.sendNow(order(r, this.opts.realHostId(r.to)));
      const ok = outcome.code === ErrorCode.CompleteOk || outcome.code === ErrorCode.Warning;
      return { ok, message: ok ? '' : `${outcome.code.name}: ${outcome.message}`, connection: outcome.code === ErrorCode.ConnectionImpossible };
    } catch (err) {
      return failed(err);
    }
  }

  async forget(orders: ReadonlyArray<{ to: string; id: bigint }>): Promise<void> {
    for (const o of orders) {
      const key = await this.key(o.to, o.id);
      if (key !== undefined) await this.opts.service.forget(key).catch(() => undefined);
    }
  }

  private startEngine(): Promise<void> {
    // A failed start is tried again at the next transfer.
    this.engineStarted ??= (this.opts.startEngine?.() ?? Promise.resolve()).catch((err: unknown) => {
      this.engineStarted = undefined;
      throw err;
    });
    return this.engineStarted;
  }

  async close(): Promise<void> {
    if (this.engineStarted !== undefined) await this.engineStarted.catch(() => undefined);
    await this.opts.stopEngine?.();
  }
}
