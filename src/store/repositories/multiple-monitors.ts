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
    // SQLite has no FOR UPDATE: a write transaction there already excludes other writers.
    const row = await (this.ctx.dialect === 'sqlite' ? q : q.forUpdate()).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async upsert(m: MultipleMonitor): Promise<void> {
    await upsertRow(this.ctx, 'multiplemonitor', { countconfig: m.countConfig, counthost: m.countHost, countrule: m.countRule, hostid: m.hostId }, ['hostid']);
  }

  async delete(hostId: string): Promise<boolean> {
    return affected(await this.ctx.db.deleteFrom('multiplemonitor').where('hostid', '=', hostId).execute()) > 0;
  }
}

function fromRow(r: Selectable<MultipleMonitorTable>): MultipleMonitor {
  return { hostId: r.hostid, countConfig: readInt(r.countconfig), countHost: readInt(r.counthost), countRule: readInt(r.countrule) };
}
