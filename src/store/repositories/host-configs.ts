import type { Selectable } from 'kysely';
import type { HostConfig } from '../../model/host-config.js';
import type { UpdatedInfo } from '../../model/transfer.js';
import { readInt, readText } from '../codec.js';
import type { HostConfigTable } from '../db-types.js';
import type { HostConfigRepository } from '../repository-types.js';
import { affected, upsertRow, type RepoContext } from './context.js';

/** HOSTCONFIG on a relational database. */
export class SqlHostConfigRepository implements HostConfigRepository {
  constructor(private readonly ctx: RepoContext) {}

  async get(hostId: string): Promise<HostConfig | undefined> {
    const row = await this.ctx.db.selectFrom('hostconfig').selectAll().where('hostid', '=', hostId).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  async list(): Promise<HostConfig[]> {
    return (await this.ctx.db.selectFrom('hostconfig').selectAll().orderBy('hostid').execute()).map(fromRow);
  }

  async upsert(c: HostConfig): Promise<void> {
    await upsertRow(this.ctx, 'hostconfig', {
      business: c.business, roles: c.roles, aliases: c.aliases, others: c.others, updatedinfo: c.updatedInfo, hostid: c.hostId,
    }, ['hostid']);
  }

  async delete(hostId: string): Promise<boolean> {
    return affected(await this.ctx.db.deleteFrom('hostconfig').where('hostid', '=', hostId).execute()) > 0;
  }

  async setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo): Promise<boolean> {
    return affected(await this.ctx.db.updateTable('hostconfig').set({ updatedinfo: updatedInfo }).where('hostid', '=', hostId).execute()) > 0;
  }
}

function fromRow(r: Selectable<HostConfigTable>): HostConfig {
  return {
    hostId: r.hostid, business: readText(r.business), roles: readText(r.roles), aliases: readText(r.aliases),
    others: readText(r.others), updatedInfo: readInt(r.updatedinfo),
  };
}
