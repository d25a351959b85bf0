import type { Selectable } from 'kysely';
import type { Limits } from '../../model/limits.js';
import type { UpdatedInfo } from '../../model/transfer.js';
import { readBig, readInt } from '../codec.js';
import type { ConfigurationTable } from '../db-types.js';
import type { LimitsRepository } from '../repository-types.js';
import { affected, upsertRow, type RepoContext } from './context.js';

/** CONFIGURATION (bandwidth limits) on a relational database. */
export class SqlLimitsRepository implements LimitsRepository {
  constructor(private readonly ctx: RepoContext) {}

  async get(hostId: string): Promise<Limits | undefined> {
    const row = await this.ctx.db.selectFrom('configuration').selectAll().where('hostid', '=', hostId).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<Limits[]> {
    return (await this.ctx.db.selectFrom('configuration').selectAll().orderBy('hostid').execute()).map(fromRow);
  }

  async upsert(l: Limits): Promise<void> {
    await upsertRow(this.ctx, 'configuration', {
      readgloballimit: BigInt(l.readGlobalLimit), writegloballimit: BigInt(l.writeGlobalLimit),
      readsessionlimit: BigInt(l.readSessionLimit), writesessionlimit: BigInt(l.writeSessionLimit),
      delaylimit: BigInt(l.delayLimit), updatedinfo: l.updatedInfo, hostid: l.hostId,
    }, ['hostid']);
  }

  async delete(hostId: string): Promise<boolean> {
    return affected(await this.ctx.db.deleteFrom('configuration').where('hostid', '=', hostId).execute()) > 0;
  }

  async setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo): Promise<boolean> {
    return affected(await this.ctx.db.updateTable('configuration').set({ updatedinfo: updatedInfo }).where('hostid', '=', hostId).execute()) > 0;
  }
}

function fromRow(r: Selectable<ConfigurationTable>): Limits {
  return {
    hostId: r.hostid, readGlobalLimit: Number(readBig(r.readgloballimit)), writeGlobalLimit: Number(readBig(r.writegloballimit)),
    readSessionLimit: Number(readBig(r.readsessionlimit)), writeSessionLimit: Number(readBig(r.writesessionlimit)),
    delayLimit: Number(readBig(r.delaylimit)), updatedInfo: readInt(r.updatedinfo),
  };
}
