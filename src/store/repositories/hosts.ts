import type { Selectable } from 'kysely';
import type { Host } from '../../model/host.js';
import type { UpdatedInfo } from '../../model/transfer.js';
import { readBool, readInt, writeBool } from '../codec.js';
import type { HostsTable } from '../db-types.js';
import type { HostFilter, HostRepository } from '../repository-types.js';
import { executeShape } from '../query-shapes.js';
import { affected, insertRow, upsertRow, upsertRows, type RepoContext } from './context.js';

/** HOSTS on a relational database. */
export class SqlHostRepository implements HostRepository {
  constructor(private readonly ctx: RepoContext) {}

  async get(hostId: string): Promise<Host | undefined> {
    const result = await executeShape(this.ctx.db, this.ctx.shapes, 'hosts.get', [hostId],
      () => this.ctx.db.selectFrom('hosts').selectAll().where('hostid', '=', hostId));
    const row = result.rows[0];
    return row ? fromRow(row) : undefined;
  }

  async list(filter: HostFilter = {}): Promise<Host[]> {
    let q = this.ctx.db.selectFrom('hosts').selectAll();
    if (filter.hostIdLike !== undefined) q = q.where('hostid', 'like', filter.hostIdLike);
    if (filter.address !== undefined) q = q.where('address', '=', filter.address);
    if (filter.isSsl !== undefined) q = q.where('isssl', '=', writeBool(this.ctx.dialect, filter.isSsl));
    if (filter.isActive !== undefined) q = q.where('isactive', '=', writeBool(this.ctx.dialect, filter.isActive));
    if (filter.updatedInfo !== undefined) q = q.where('updatedinfo', '=', filter.updatedInfo);
    return (await q.orderBy('hostid').execute()).map(fromRow);
  }

  async insert(host: Host): Promise<void> {
    await insertRow(this.ctx, 'hosts', this.toRow(host), `host ${host.hostId}`);
  }

  async upsert(host: Host): Promise<void> {
    await upsertRow(this.ctx, 'hosts', this.toRow(host), ['hostid']);
  }

  async upsertMany(hosts: readonly Host[]): Promise<void> {
    // One statement may not touch a key twice (PostgreSQL refuses it): the last entry wins, as
    // with one upsert after the other.
    const last = new Map(hosts.map((h) => [h.hostId, h]));
    await upsertRows(this.ctx, 'hosts', [...last.values()].map((h) => this.toRow(h)), ['hostid']);
  }

  async delete(hostId: string): Promise<boolean> {
    return affected(await this.ctx.db.deleteFrom('hosts').where('hostid', '=', hostId).execute()) > 0;
  }

  async setUpdatedInfo(hostId: string, updatedInfo: UpdatedInfo): Promise<boolean> {
    return affected(await this.ctx.db.updateTable('hosts').set({ updatedinfo: updatedInfo }).where('hostid', '=', hostId).execute()) > 0;
  }

  private toRow(h: Host) {
    const b = (v: boolean) => writeBool(this.ctx.dialect, v);
    return {
      address: h.address, port: h.port, isssl: b(h.isSsl), hostkey: h.hostKey ?? Buffer.alloc(0), adminrole: b(h.adminRole),
      isclient: b(h.isClient), isactive: b(h.isActive), isproxified: b(h.isProxified), updatedinfo: h.updatedInfo, hostid: h.hostId,
    };
  }
}

// HOSTKEY is NOT NULL: "no password" (null) is stored as zero bytes and read back as null.
function fromRow(r: Selectable<HostsTable>): Host {
  return {
    hostId: r.hostid, address: r.address, port: readInt(r.port), isSsl: readBool(r.isssl),
    hostKey: r.hostkey == null || r.hostkey.length === 0 ? null : Buffer.from(r.hostkey), adminRole: readBool(r.adminrole),
    isClient: readBool(r.isclient), isActive: readBool(r.isactive), isProxified: readBool(r.isproxified),
    updatedInfo: readInt(r.updatedinfo),
  };
}
