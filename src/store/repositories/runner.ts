import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool, Updateable } from 'kysely';
import { sql } from '../kysely.js';
import { parseErrorCode } from '../../model/error-code.js';
import { toUpdatedInfo, UpdatedInfo, type TransferKey, type TransferRecord } from '../../model/transfer.js';
import { readBig, readBool, readInt, readText, readTs, writeBool, writeTs } from '../codec.js';
import type { Database, RunnerTable } from '../db-types.js';
import { RunnerWrites } from '../runner-writes.js';
import type { RunnerRepository, TransferFilter, TransferListOptions, TransferStateChange, TransferTally } from '../repository-types.js';
import { isDuplicateKey, StoreError } from '../errors.js';
import { affectedRows, executeShape } from '../query-shapes.js';
import { affected, upsertRow, type RepoContext } from './context.js';
import { bulkMoveSql, FINISHED_DONE, SERVER_START, type BulkMove } from '../bulk-moves.js';

const KEY_COLUMNS = ['requested', 'requester', 'ownerreq', 'specialid'] as const;
const ORDER_COLUMNS = { specialId: 'specialid', start: 'starttrans', stop: 'stoptrans' } as const;
/**
 * Rows per INSERT of {@link SqlRunnerRepository.insertMany}: 22 parameters each, well under the
 * smallest limit of the three dialects (SQLite's 32766 parameters per statement).
 */
const ROWS_PER_INSERT = 100;

/**
 * RUNNER on a relational database. Called once per transfer state change (not per block): each
 * method is one simple statement on the primary key or on an indexed filter.
 */
export class SqlRunnerRepository extends RunnerWrites implements RunnerRepository {
  constructor(private readonly ctx: RepoContext) {
    super();
  }

  async insert(record: TransferRecord): Promise<void> {
    const row = this.toRow(record);
    try {
      await executeShape(this.ctx.db, this.ctx.shapes, 'runner.insert', Object.values(row), () => this.ctx.db.insertInto('runner').values(row));
    } catch (err) {
      if (isDuplicateKey(err)) throw new StoreError(`transfer ${record.specialId} (${record.requester} -> ${record.requested}, owner ${record.ownerReq}) already exists in RUNNER`, { cause: err });
      throw err;
    }
  }

  async insertMany(records: readonly TransferRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (records.length === 1) return this.insert(records[0] as TransferRecord);
    const rows = records.map((r) => this.toRow(r));
    const run = async (db: Kysely<Database>): Promise<void> => {
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        const part = rows.slice(i, i + ROWS_PER_INSERT);
        // Only full statements are kept by shape: one shape, not one per row count.
        const shapes = part.length === ROWS_PER_INSERT ? this.ctx.shapes : undefined;
        await executeShape(db, shapes, `runner.insertMany:${part.length}`, part.flatMap((r) => Object.values(r)), () => db.insertInto('runner').values(part));
      }
    };
    try {
      // One statement is atomic by itself; several share a transaction (unless already in one).
      if (rows.length <= ROWS_PER_INSERT || this.ctx.db.isTransaction) await run(this.ctx.db);
      else await this.ctx.db.transaction().execute(run);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      const ids = records.map((r) => r.specialId);
      throw new StoreError(`one of ${records.length} transfers (ids ${ids[0]} to ${ids[ids.length - 1]}) already exists in RUNNER: none was inserted`, { cause: err });
    }
  }

  async importRows(records: readonly TransferRecord[]): Promise<void> {
    for (const r of records) await upsertRow(this.ctx, 'runner', this.toRow(r), KEY_COLUMNS);
  }

  async get(key: TransferKey): Promise<TransferRecord | undefined> {
    const result = await executeShape(this.ctx.db, this.ctx.shapes, 'runner.get', keyParams(key),
      () => this.ctx.db.selectFrom('runner').selectAll().where((eb) => byKey(eb, key)));
    const row = result.rows[0];
    return row ? fromRow(row) : undefined;
  }

  async findBySpecialId(ownerReq: string, specialId: bigint): Promise<TransferRecord[]> {
    const rows = await this.ctx.db.selectFrom('runner').selectAll()
      .where('ownerreq', '=', ownerReq).where('specialid', '=', specialId).orderBy('requester').orderBy('requested').execute();
    return rows.map(fromRow);
  }

  /** Every write of columns of a stored row ends here (RunnerWrites: moves and named updates). */
  protected async writeColumns(key: TransferKey, change: TransferStateChange): Promise<boolean> {
    const d = this.ctx.dialect;
    const set: Updateable<RunnerTable> = { stoptrans: writeTs(d, change.stop ?? new Date()) };
    if (change.globalStep !== undefined) set.globalstep = change.globalStep;
    if (change.globalLastStep !== undefined) set.globallaststep = change.globalLastStep;
    if (change.step !== undefined) set.step = change.step;
    if (change.rank !== undefined) set.rank = change.rank;
    if (change.blockSize !== undefined) set.blocksz = change.blockSize;
    if (change.mode !== undefined) set.modetrans = change.mode;
    if (change.updatedInfo !== undefined) set.updatedinfo = change.updatedInfo;
    if (change.stepStatus !== undefined) set.stepstatus = change.stepStatus.char;
    if (change.infoStatus !== undefined) set.infostatus = change.infoStatus.char;
    if (change.isMoved !== undefined) set.ismoved = writeBool(d, change.isMoved);
    if (change.filename !== undefined) set.filename = change.filename;
    if (change.originalName !== undefined) set.originalname = change.originalName;
    if (change.fileInfo !== undefined) set.fileinfo = change.fileInfo;
    if (change.transferInfo !== undefined) set.transferinfo = change.transferInfo;
    if (change.start !== undefined) set.starttrans = writeTs(d, change.start);
    return this.updateByKey(`runner.write:${Object.keys(set).join(',')}`, key, set);
  }

  /** UPDATE of `set`'s columns on the row of `key`, built once per shape (query-shapes.ts). */
  private async updateByKey(shape: string, key: TransferKey, set: Updateable<RunnerTable>): Promise<boolean> {
    const params = [...Object.values(set), ...keyParams(key)];
    const result = await executeShape(this.ctx.db, this.ctx.shapes, shape, params,
      () => this.ctx.db.updateTable('runner').set(set).where((eb) => byKey(eb, key)));
    return affectedRows(result) > 0;
  }

  async list(filter: TransferFilter = {}, options: TransferListOptions = {}): Promise<TransferRecord[]> {
    const column = ORDER_COLUMNS[options.orderBy ?? 'specialId'];
    const direction = options.descending ? 'desc' : 'asc';
    let q = this.ctx.db.selectFrom('runner').selectAll().where((eb) => this.condition(eb, filter)).orderBy(column, direction);
    // A stable order for equal sort keys keeps pagination deterministic.
    if (column !== 'specialid') q = q.orderBy('specialid', direction);
    if (options.limit !== undefined) q = q.limit(options.limit);
    if (options.offset !== undefined) {
      // MariaDB/MySQL and SQLite accept OFFSET only after a LIMIT.
      if (options.limit === undefined) q = q.limit(Number.MAX_SAFE_INTEGER);
      q = q.offset(options.offset);
    }
    return (await q.execute()).map(fromRow);
  }

  async count(filter: TransferFilter = {}): Promise<number> {
    const row = await this.ctx.db.selectFrom('runner').select((eb) => eb.fn.countAll().as('n')).where((eb) => this.condition(eb, filter)).executeTakeFirstOrThrow();
    return readInt(row.n);
  }

  async tally(filter: TransferFilter, host: string): Promise<TransferTally[]> {
    const rows = await this.ctx.db.selectFrom('runner')
      .select((eb) => [
        eb.case().when('requested', '=', host).then(1).else(0).end().as('inbound'),
        'updatedinfo', 'globalstep', 'stepstatus', 'infostatus',
        eb.fn.countAll().as('n'), eb.fn.max('starttrans').as('laststart'),
      ])
      .where((eb) => this.condition(eb, filter))
      // By position: the three dialects accept it, and it repeats the CASE without a second parameter.
      .groupBy(sql`1, 2, 3, 4, 5` as never)
      .execute();
    return rows.map((r) => ({
      inbound: readInt(r.inbound) === 1, updatedInfo: toUpdatedInfo(readInt(r.updatedinfo)), globalStep: readInt(r.globalstep),
      stepStatus: parseErrorCode(readText(r.stepstatus)).char, infoStatus: parseErrorCode(readText(r.infostatus)).char,
      count: readInt(r.n), lastStart: readTs(r.laststart),
    }));
  }

  async delete(key: TransferKey): Promise<boolean> {
    return affected(await this.ctx.db.deleteFrom('runner').where((eb) => byKey(eb, key)).execute()) > 0;
  }

  async deleteWhere(filter: TransferFilter): Promise<number> {
    return affected(await this.ctx.db.deleteFrom('runner').where((eb) => this.condition(eb, filter)).execute());
  }

  async listDue(ownerReq: string, now: Date, limit: number): Promise<TransferRecord[]> {
    const rows = await this.ctx.db.selectFrom('runner').selectAll()
      .where('ownerreq', '=', ownerReq).where('starttrans', '<=', writeTs(this.ctx.dialect, now)).where('updatedinfo', '=', UpdatedInfo.TOSUBMIT)
      .orderBy('starttrans').orderBy('specialid').limit(limit).execute();
    return rows.map(fromRow);
  }

  async resetInterrupted(ownerReq: string): Promise<number> {
    return this.bulkMove(ownerReq, SERVER_START);
  }

  async markFinishedAsDone(ownerReq: string): Promise<number> {
    return this.bulkMove(ownerReq, FINISHED_DONE);
  }

  /**
   * A bulk move of the state machine (src/transfer/state.ts gives its columns and values) as one
   * UPDATE over the owner's rows. STEPSTATUS is compared with the list of codes the move names,
   * never with a collation-dependent `> 'O'`.
   */
  private async bulkMove(ownerReq: string, move: BulkMove): Promise<number> {
    const { set, where } = bulkMoveSql(move);
    let q = this.ctx.db.updateTable('runner').set(set).where('ownerreq', '=', ownerReq);
    for (const c of where) q = q.where(c.column, c.op, c.value as never);
    return affected(await q.execute());
  }

  private condition(eb: ExpressionBuilder<Database, 'runner'>, f: TransferFilter): Expression<SqlBool> {
    const d = this.ctx.dialect;
    const parts: Expression<SqlBool>[] = [];
    if (f.ownerReq !== undefined) parts.push(eb('ownerreq', '=', f.ownerReq));
    if (f.specialIdFrom !== undefined) parts.push(eb('specialid', '>=', f.specialIdFrom));
    if (f.specialIdTo !== undefined) parts.push(eb('specialid', '<=', f.specialIdTo));
    if (f.startFrom !== undefined) parts.push(eb('starttrans', '>=', writeTs(d, f.startFrom)));
    if (f.startTo !== undefined) parts.push(eb('starttrans', '<=', writeTs(d, f.startTo)));
    if (f.stopFrom !== undefined) parts.push(eb('stoptrans', '>=', writeTs(d, f.stopFrom)));
    if (f.stopTo !== undefined) parts.push(eb('stoptrans', '<=', writeTs(d, f.stopTo)));
    if (f.idRule !== undefined) parts.push(eb('idrule', '=', f.idRule));
    if (f.requester !== undefined) parts.push(eb('requester', '=', f.requester));
    if (f.requested !== undefined) parts.push(eb('requested', '=', f.requested));
    if (f.partner !== undefined) parts.push(eb.or([eb('requester', '=', f.partner), eb('requested', '=', f.partner)]));
    if (f.updatedInfo !== undefined) parts.push(f.updatedInfo.length ? eb('updatedinfo', 'in', f.updatedInfo) : eb.lit(false));
    if (f.globalStep !== undefined) parts.push(f.globalStep.length ? eb('globalstep', 'in', f.globalStep) : eb.lit(false));
    if (f.notRunning) parts.push(eb('updatedinfo', '<>', UpdatedInfo.RUNNING));
    if (f.followId !== undefined) {
      // The original searches TRANSFERINFO LIKE '%"follow":<id>%' but its client writes the follow
      // id in FILEINFO only: both columns (rows written before carry it in TRANSFERINFO). The
      // closing character keeps id 12 from matching 123.
      const id = f.followId.toString();
      parts.push(eb.or((['fileinfo', 'transferinfo'] as const).flatMap((c) => [eb(c, 'like', `%"follow":${id},%`), eb(c, 'like', `%"follow":${id}}%`)])));
    }
    const s = f.status;
    if (s && (s.pending || s.transfer || s.error || s.done)) {
      const any: Expression<SqlBool>[] = [];
      if (s.pending) any.push(eb('updatedinfo', '=', UpdatedInfo.TOSUBMIT));
      if (s.transfer) any.push(eb('updatedinfo', '=', UpdatedInfo.RUNNING));
      if (s.error) any.push(eb('updatedinfo', 'in', [UpdatedInfo.INERROR, UpdatedInfo.INTERRUPTED]), eb('globalstep', '=', 5));
      if (s.done) any.push(eb('updatedinfo', '=', UpdatedInfo.DONE), eb('globalstep', '=', 4));
      parts.push(eb.or(any));
    }
    return eb.and(parts);
  }

  private toRow(r: TransferRecord) {
    const d = this.ctx.dialect;
    return {
      specialid: r.specialId, globalstep: r.globalStep, globallaststep: r.globalLastStep, step: r.step, rank: r.rank,
      blocksz: r.blockSize, modetrans: r.mode, updatedinfo: r.updatedInfo, stepstatus: r.stepStatus.char, infostatus: r.infoStatus.char,
      retrievemode: writeBool(d, r.retrieveMode), ismoved: writeBool(d, r.isMoved), starttrans: writeTs(d, r.start), stoptrans: writeTs(d, r.stop),
      ownerreq: r.ownerReq, requester: r.requester, requested: r.requested, idrule: r.idRule, filename: r.filename,
      originalname: r.originalName, fileinfo: r.fileInfo, transferinfo: r.transferInfo,
    };
  }
}

/** The key's values in the order {@link byKey} puts them in the SQL. */
function keyParams(key: TransferKey): unknown[] {
  return [key.requested, key.requester, key.ownerReq, key.specialId];
}

function byKey(eb: ExpressionBuilder<Database, 'runner'>, key: TransferKey): Expression<SqlBool> {
  return eb.and([eb('requested', '=', key.requested), eb('requester', '=', key.requester), eb('ownerreq', '=', key.ownerReq), eb('specialid', '=', key.specialId)]);
}

/** A RUNNER row as a model record; status codes keep only their first character (database.md §4.3). */
export function fromRow(r: Selectable<RunnerTable>): TransferRecord {
  return {
    specialId: readBig(r.specialid), globalStep: readInt(r.globalstep), globalLastStep: readInt(r.globallaststep),
    step: readInt(r.step), rank: readInt(r.rank), blockSize: readInt(r.blocksz), mode: readInt(r.modetrans),
    updatedInfo: toUpdatedInfo(readInt(r.updatedinfo)),
    stepStatus: parseErrorCode(readText(r.stepstatus)), infoStatus: parseErrorCode(readText(r.infostatus)),
    retrieveMode: readBool(r.retrievemode), isMoved: readBool(r.ismoved), start: readTs(r.starttrans), stop: readTs(r.stoptrans),
    ownerReq: r.ownerreq, requester: r.requester, requested: r.requested, idRule: r.idrule,
    filename: readText(r.filename), originalName: readText(r.originalname), fileInfo: readText(r.fileinfo), transferInfo: readText(r.transferinfo),
  };
}
