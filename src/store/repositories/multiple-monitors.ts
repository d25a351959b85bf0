import type { Selectable } from 'kysely';
import type { MultipleMonitor } from '../../model/multiple-monitor.js';
import { readInt } from '../codec.js';
import type { MultipleMonitorTable } from '../db-types.js';
import type { MultipleMonitorRepository } from '../repository-types.js';
import { affected, upsertRow, type RepoContext } from './context.js';

/** MULTIPLEMONITOR on a relational database. */
export class SqlMultipleMonitorRepository implements MultipleMonitorRepository {
  constructor(private readonly ctx: RepoContext) {}

  async get(hostId: string): Promise<MultipleMonitor | undefined> {
    const row = await this.ctx.db.selectFrom('multiplemonitor').selectAll().where('hostid', '=', hostId).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async getForUpdate(hostId: string): Promise<MultipleMonitor | undefined> {
    const q = this.ctx.db.selectFrom('multiplemonitor').selectAll().where('hostid', '=', hostId);
    const row = await this.ctx.dialect.lockForUpdate(q).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async insertIfAbsent(m: MultipleMonitor): Promise<boolean> {
    const insert = this.ctx.db.insertInto('multiplemonitor').values({ countconfig: m.countConfig, counthost: m.countHost, countrule: m.countRule, hostid: m.hostId });
    // ON CONFLICT DO NOTHING / INSERT IGNORE: a duplicate is no error (a failed statement would
    // abort a PostgreSQL transaction around it).
    return affectedInserts(await this.ctx.dialect.ignoreDuplicate(insert, ['hostid']).executeTakeFirst()) > 0;
  }

  async upsert(m: MultipleMonitor): Promise<void> {
    await upsertRow(this.ctx, 'multiplemonitor', { countconfig: m.countConfig, counthost: m.countHost, countrule: m.countRule, hostid: m.hostId }, ['hostid']);
  }

  async delete(hostId: string): Promise<boolean> {
    return affected(await this.ctx.db.deleteFrom('multiplemonitor').where('hostid', '=', hostId).execute()) > 0;
  }
}

function affectedInserts(r: { numInsertedOrUpdatedRows?: bigint } | undefined): number {
  return Number(r?.numInsertedOrUpdatedRows ?? 0n);
}

function fromRow(r: Selectable<MultipleMonitorTable>): MultipleMonitor {
  return { hostId: r.hostid, countConfig: readInt(r.countconfig), countHost: readInt(r.counthost), countRule: readInt(r.countrule) };
}
