/** v1 `/hostconfigs` (model DbHostConfiguration, rest-v1.md §11.4): the raw XML texts of HOSTCONFIG. */
import { Role } from '../../../config/index.js';
import type { HostConfig } from '../../../model/host-config.js';
import { UpdatedInfo } from '../../../model/transfer.js';
import { othersWithVersion, CURRENT_SCHEMA_VERSION } from '../../../store/index.js';
import type { JsonObject } from '../../json.js';
import { collapse, ModelError, removeKeyed, SQL, text, updateKeyed, type DataModel, type ModelArgs } from './model.js';

const TEXTS = [['BUSINESS', 'business'], ['ROLES', 'roles'], ['ALIASES', 'aliases'], ['OTHERS', 'others']] as const;

export function hostConfigItem(c: HostConfig): JsonObject {
  return { '@model': 'DbHostConfiguration', HOSTID: c.hostId, BUSINESS: c.business, ROLES: c.roles, ALIASES: c.aliases, OTHERS: c.others, UPDATEDINFO: BigInt(c.updatedInfo) };
}

function apply(c: HostConfig, args: ModelArgs): void {
  // Whitespace runs are collapsed on input, as the original stores them.
  for (const [column, field] of TEXTS) {
    const v = text(args, column);
    if (v !== undefined) c[field] = collapse(v);
  }
  c.updatedInfo = UpdatedInfo.TOSUBMIT;
}

export const hostConfigsModel: DataModel = {
  fn: 'DbHostConfiguration', base: 'hostconfigs', model: 'DbHostConfiguration', role: Role.CONFIGADMIN,
  columns: { HOSTID: SQL.NVARCHAR, BUSINESS: SQL.LONGVARCHAR, ROLES: SQL.LONGVARCHAR, ALIASES: SQL.LONGVARCHAR, OTHERS: SQL.LONGVARCHAR, UPDATEDINFO: SQL.INTEGER },
  filters: { HOSTID: 'host id equals', BUSINESS: 'contains', ROLES: 'contains', ALIASES: 'contains', OTHERS: 'contains', limit: 'maximum items returned (default 100)' },
  async list(ctx, args) {
    const id = text(args, 'HOSTID');
    const contains = TEXTS.map(([column, field]) => [field, text(args, column)] as const).filter(([, v]) => v);
    return (await ctx.services.store.hostConfigs.list())
      .filter((c) => (!id || c.hostId === id) && contains.every(([field, v]) => c[field].includes(v!)))
      .map(hostConfigItem);
  },
  get: async (ctx, id) => {
    const c = await ctx.services.store.hostConfigs.get(id);
    return c === undefined ? undefined : hostConfigItem(c);
  },
  async create(ctx, args) {
    const id = text(args, 'HOSTID');
    if (!id) throw new ModelError(400, 'not enough data to create a host configuration: HOSTID required');
    const store = ctx.services.store.hostConfigs;
    const c: HostConfig = (await store.get(id)) ?? { hostId: id, business: '', roles: '', aliases: '', others: othersWithVersion('', CURRENT_SCHEMA_VERSION), updatedInfo: 0 };
    apply(c, args);
    await store.upsert(c);
    return hostConfigItem(c);
  },
  update: (ctx, id, args) => updateKeyed(ctx.services.store.hostConfigs, id, (c) => apply(c, args), hostConfigItem),
  remove: (ctx, id) => removeKeyed(ctx.services.store.hostConfigs, id, hostConfigItem),
};
