/**
 * How a watcher gives its transfer orders (filewatcher.md §3.3): a TOSUBMIT row for the local
 * server's scheduler, or a transfer run now by this process. A thin adapter over today's transfer
 * engine (src/transfer), to be replaced by the one service for transfer orders (src/operations)
 * when it lands; the watcher only sees this interface.
 *
 * Every order carries a transfer id chosen (and written to the state file) before the order is
 * given, so an order interrupted by a crash is recognised and never given twice (docs/decisions).
 */
import { ErrorCode } from '../model/error-code.js';
import { TaskStep, UpdatedInfo } from '../model/transfer.js';
import { R66Error } from '../net/errors.js';
import type { Store } from '../store/index.js';
import type { TransferEngine, TransferRequest } from '../transfer/index.js';

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

export interface TransferOrders {
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

export interface EngineOrdersOptions {
  store: Store;
  hostId: string;
  /** This host's id towards a partner (its TLS id for a TLS partner); undefined for an unknown partner. */
  requesterFor(partner: string): Promise<string | undefined>;
  /** The partner's real id (aliases resolved). */
  realHostId(id: string): string;
  /** The transfer engine, opened on first direct transfer. */
  engine(): Promise<TransferEngine>;
}

function request(r: OrderRequest, to: string): TransferRequest {
  return { partner: to, rule: r.rule, file: r.file, id: r.id, md5: r.md5, blockSize: r.blockSize, fileInfo: r.info, noFollow: r.noFollow };
}

function failed(err: unknown): OrderResult {
  if (err instanceof R66Error) return { ok: false, message: `${err.code.name}: ${err.message}`, connection: err.code === ErrorCode.ConnectionImpossible };
  return { ok: false, message: err instanceof Error ? err.message : String(err), connection: false };
}

export class EngineOrders implements TransferOrders {
  private engineOpened: Promise<TransferEngine> | undefined;

  constructor(private readonly opts: EngineOrdersOptions) {}

  newIds(n: number): Promise<bigint[]> {
    return this.opts.store.nextTransferIds(n);
  }

  private async key(to: string, id: bigint): Promise<{ specialId: bigint; ownerReq: string; requester: string; requested: string } | undefined> {
    const requested = this.opts.realHostId(to);
    const requester = await this.opts.requesterFor(requested);
    return requester === undefined ? undefined : { specialId: id, ownerReq: this.opts.hostId, requester, requested };
  }

  async state(to: string, id: bigint, submit: boolean): Promise<OrderState> {
    const key = await this.key(to, id);
    const row = key === undefined ? undefined : await this.opts.store.runner.get(key);
    if (row === undefined) return 'none';
    // A submitted row is the scheduler's from then on: written is done for the watcher.
    if (submit) return 'done';
    return row.updatedInfo === UpdatedInfo.DONE || row.globalStep === TaskStep.ALLDONETASK ? 'done' : 'open';
  }

  async submit(r: OrderRequest): Promise<OrderResult> {
    try {
      const engine = await this.engine();
      await engine.submitLater(request(r, this.opts.realHostId(r.to)));
      return { ok: true, message: '', connection: false };
    } catch (err) {
      return failed(err);
    }
  }

  async run(r: OrderRequest): Promise<OrderResult> {
    try {
      const engine = await this.engine();
      const outcome = await engine.submitSend(request(r, this.opts.realHostId(r.to)));
      const ok = outcome.code === ErrorCode.CompleteOk || outcome.code === ErrorCode.Warning;
      return { ok, message: ok ? '' : `${outcome.code.name}: ${outcome.message}`, connection: outcome.code === ErrorCode.ConnectionImpossible };
    } catch (err) {
      return failed(err);
    }
  }

  async forget(orders: ReadonlyArray<{ to: string; id: bigint }>): Promise<void> {
    for (const o of orders) {
      const key = await this.key(o.to, o.id);
      const row = key === undefined ? undefined : await this.opts.store.runner.get(key);
      if (row !== undefined) await this.opts.store.runner.delete(row).catch(() => undefined);
    }
  }

  private engine(): Promise<TransferEngine> {
    this.engineOpened ??= this.opts.engine();
    return this.engineOpened;
  }

  async close(): Promise<void> {
    if (this.engineOpened !== undefined) await (await this.engineOpened.catch(() => undefined))?.close();
  }
}
