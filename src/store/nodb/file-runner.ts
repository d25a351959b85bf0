import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirsSync } from '../../fs/make-dirs.js';
import type { TransferKey, TransferRecord } from '../../model/transfer.js';
import { UpdatedInfo } from '../../model/transfer.js';
import { StoreError } from '../errors.js';
import { RunnerWrites } from '../runner-writes.js';
import type { RunnerRepository, TransferFilter, TransferListOptions, TransferStateChange, TransferTally } from '../repository-types.js';
import { runnersDocument, runnersFromXml } from '../runners-document.js';
import { matchesTransfer, orderTransfers, tallyTransfers } from './transfer-filter.js';
import { FINISHED_DONE, inBulkMove, SERVER_START, type BulkMove } from '../bulk-moves.js';

const SUFFIX = '_singlerunner.xml';

/**
 * RUNNER without a database (database.md §11): one XML file per transfer in the archive
 * directory, `<requester>_<requested>_<specialid>_singlerunner.xml`, root `taskrunners` with one
 * `runner`. Files are replaced atomically (write then rename). Lists read every file: this mode
 * serves clients with a handful of transfers, not servers.
 */
export class FileRunnerRepository extends RunnerWrites implements RunnerRepository {
  constructor(private readonly dir: string) {
    super();
  }

  private path(key: TransferKey): string {
    return join(this.dir, `${key.requester}_${key.requested}_${key.specialId}${SUFFIX}`);
  }

  private async write(record: TransferRecord): Promise<void> {
    makeDirsSync(this.dir);
    const target = this.path(record);
    const tmp = `${target}.${process.pid}.tmp`;
    await writeFile(tmp, runnersDocument([record], { withState: true }), 'utf8');
    await rename(tmp, target);
  }

  private async readFileRecord(file: string): Promise<TransferRecord | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StoreError(`cannot read transfer file ${file}: ${(err as Error).message}`, { cause: err });
    }
    return runnersFromXml(text)[0];
  }

  private async all(): Promise<TransferRecord[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith(SUFFIX));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new StoreError(`cannot list transfer files in ${this.dir}: ${(err as Error).message}`, { cause: err });
    }
    const records = await Promise.all(names.map((n) => this.readFileRecord(join(this.dir, n)).catch(() => undefined)));
    return records.filter((r): r is TransferRecord => r !== undefined);
  }

  async insert(record: TransferRecord): Promise<void> {
    if (await this.get(record)) throw new StoreError(`transfer ${record.specialId} (${record.requester} -> ${record.requested}) already exists`);
    await this.write(record);
  }

  async insertMany(records: readonly TransferRecord[]): Promise<void> {
    const paths = new Set<string>();
    for (const r of records) {
      const p = this.path(r);
      if (paths.has(p) || (await this.get(r))) throw new StoreError(`transfer ${r.specialId} (${r.requester} -> ${r.requested}) already exists: none of ${records.length} was inserted`);
      paths.add(p);
    }
    const written: TransferRecord[] = [];
    try {
      for (const r of records) {
        await this.write(r);
        written.push(r);
      }
    } catch (err) {
      // All or nothing: the files already written go again.
      await Promise.all(written.map((r) => rm(this.path(r), { force: true }).catch(() => undefined)));
      throw err;
    }
  }

  async importRows(records: readonly TransferRecord[]): Promise<void> {
    for (const r of records) await this.write(r);
  }

  async get(key: TransferKey): Promise<TransferRecord | undefined> {
    const r = await this.readFileRecord(this.path(key));
    return r && r.ownerReq === key.ownerReq ? r : undefined;
  }

  async findBySpecialId(ownerReq: string, specialId: bigint): Promise<TransferRecord[]> {
    return this.list({ ownerReq, specialIdFrom: specialId, specialIdTo: specialId }, { orderBy: 'specialId' })
      .then((l) => l.sort((a, b) => (a.requester + a.requested < b.requester + b.requested ? -1 : 1)));
  }

  /** The writes of each row under way in this process: a read, change and replace is not atomic. */
  private readonly writes = new Map<string, Promise<unknown>>();

  /**
   * Every write of columns of a stored row ends here (RunnerWrites: moves and named updates), one
   * after the other per row: two at once (a transfer's heartbeat and its RESCHEDULE task, an order)
   * would each replace the file with the row it read, losing the other's columns.
   */
  protected writeColumns(key: TransferKey, change: TransferStateChange): Promise<boolean> {
    const file = this.path(key);
    const run = (this.writes.get(file) ?? Promise.resolve()).then(() => this.replaceColumns(key, change));
    const tail = run.catch(() => undefined);
    this.writes.set(file, tail);
    void tail.then(() => {
      if (this.writes.get(file) === tail) this.writes.delete(file);
    });
    return run;
  }

  private async replaceColumns(key: TransferKey, change: TransferStateChange): Promise<boolean> {
    const current = await this.get(key);
    if (!current) return false;
    const defined = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) as Partial<TransferRecord>;
    await this.write({ ...current, ...defined, stop: change.stop ?? new Date() });
    return true;
  }

  async list(filter: TransferFilter = {}, options: TransferListOptions = {}): Promise<TransferRecord[]> {
    return orderTransfers((await this.all()).filter((r) => matchesTransfer(r, filter)), options);
  }

  async count(filter: TransferFilter = {}): Promise<number> {
    return (await this.list(filter)).length;
  }

  async tally(filter: TransferFilter, host: string): Promise<TransferTally[]> {
    return tallyTransfers(await this.list(filter), host);
  }

  async delete(key: TransferKey): Promise<boolean> {
    if (!(await this.get(key))) return false;
    await rm(this.path(key), { force: true });
    return true;
  }

  async deleteWhere(filter: TransferFilter): Promise<number> {
    const doomed = await this.list(filter);
    for (const r of doomed) await rm(this.path(r), { force: true });
    return doomed.length;
  }

  async listDue(ownerReq: string, now: Date, limit: number): Promise<TransferRecord[]> {
    return this.list({ ownerReq, startTo: now, updatedInfo: [UpdatedInfo.TOSUBMIT] }, { orderBy: 'start', limit });
  }

  async resetInterrupted(ownerReq: string): Promise<number> {
    return this.bulkMove(ownerReq, SERVER_START);
  }

  async markFinishedAsDone(ownerReq: string): Promise<number> {
    return this.bulkMove(ownerReq, FINISHED_DONE);
  }

  /** A bulk move of the state machine (src/transfer/state.ts), row by row. */
  private async bulkMove(ownerReq: string, move: BulkMove): Promise<number> {
    const rows = (await this.list({ ownerReq })).filter((r) => inBulkMove(move, r));
    for (const r of rows) await this.write({ ...r, updatedInfo: move.set.updatedInfo });
    return rows.length;
  }
}
