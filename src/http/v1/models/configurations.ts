/**
 * v1 `/configurations` (model DbConfiguration, rest-v1.md §11.5): the stored bandwidth limits
 * per host. Reading an unknown host answers a record of zeros, not 404, as the original does.
 */
import { Role } from '../../../config/index.js';
import type { Limits } from '../../../model/limits.js';
import { UpdatedInfo } from '../../../model/transfer.js';
import type { JsonObject } from '../../json.js';
import { long, ModelError, removeKeyed, SQL, text, updateKeyed, type DataModel, type ModelArgs } from './model.js';

const LIMITS = [
  ['READGLOBALLIMIT', 'readGlobalLimit'], ['WRITEGLOBALLIMIT', 'writeGlobalLimit'], ['READSESSIONLIMIT', 'readSessionLimit'],
  ['WRITESESSIONLIMIT', 'writeSessionLimit'], ['DELAYLIMIT', 'delayLimit'],
] as const;

export function limitsItem(l: Limits): JsonObject {
  const item: JsonObject = { '@model': 'DbConfiguration', HOSTID: l.hostId };
  for (const [column, field] of LIMITS) item[column] = BigInt(l[field]);
  item.UPDATEDINFO = BigInt(l.updatedInfo);
  return item;
}

const empty = (hostId: string): Limits => ({ hostId, readGlobalLimit: 0, writeGlobalLimit: 0, readSessionLimit: 0, writeSessionLimit: 0, delayLimit: 0, updatedInfo: 0 });

function apply(l: Limits, args: ModelArgs): void {
  for (const [column, field] of LIMITS) {
    const v = long(args, column);
    if (v === undefined) continue;
    if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ModelError(400, `${column} must be a positive number of bytes per second (or ms)`);
    l[field] = Number(v);
  }
  l.updatedInfo = UpdatedInfo.TOSUBMIT;
}

export const configurationsModel: DataModel = {
  fn: 'DbConfiguration', base: 'configurations', model: 'DbConfiguration', role: Role.CONFIGADMIN,
  columns: { HOSTID: SQL.NVARCHAR, ...Object.fromEntries(LIMITS.map(([c]) => [c, SQL.BIGINT])), UPDATEDINFO: SQL.INTEGER },
  filters: { HOSTID: 'host id equals', BANDWIDTH: '< 0 any, 0 all limits 0, > 0 any limit above', limit: 'maximum items returned (default 100)' },
  async list(ctx, args) {
    const id = text(args, 'HOSTID');
    const bw = long(args, 'BANDWIDTH') ?? -1n;
    const limits = (l: Limits): number[] => [l.readGlobalLimit, l.writeGlobalLimit, l.readSessionLimit, l.writeSessionLimit];
    // BANDWIDTH = 0 means "all four limits are 0" (defect D5: the original's SQL for it is unusable).
    const keep = (l: Limits): boolean => (bw < 0n ? true : bw === 0n ? limits(l).every((v) => v === 0) : limits(l).some((v) => BigInt(v) > bw));
    return (await ctx.services.store.limits.list()).filter((l) => (!id || l.hostId === id) && keep(l)).map(limitsItem);
  },
  get: async (ctx, id) => limitsItem((await ctx.services.store.limits.get(id)) ?? empty(id)),
  async create(ctx, args) {
    const id = text(args, 'HOSTID');
    if (!id) throw new ModelError(400, 'not enough data to create a configuration: HOSTID required');
    const l = (await ctx.services.store.limits.get(id)) ?? empty(id);
    apply(l, args);
    await ctx.services.store.limits.upsert(l);
    return limitsItem(l);
  },
  update: (ctx, id, args) => updateKeyed(ctx.services.store.limits, id, (l) => apply(l, args), limitsItem),
  remove: (ctx, id) => removeKeyed(ctx.services.store.limits, id, limitsItem),
};
