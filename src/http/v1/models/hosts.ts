/**
 * v1 `/hosts` (model DbHostAuth, rest-v1.md §11.2). HOSTKEY goes out as base64 of the stored
 * (encrypted hex) key and comes in as base64 of the clear password, which is encrypted here; the
 * clear password is never stored, echoed or logged.
 */
import { encryptPasswordHex, Role } from '../../../config/index.js';
import { NO_ADDRESS, type Host } from '../../../model/host.js';
import { UpdatedInfo } from '../../../model/transfer.js';
import type { RestListenerContext } from '../../context.js';
import type { JsonObject } from '../../json.js';
import { bool, int, ModelError, removeKeyed, SQL, text, updateKeyed, type DataModel, type ModelArgs } from './model.js';

export function hostItem(h: Host): JsonObject {
  return {
    '@model': 'DbHostAuth', HOSTID: h.hostId, ADDRESS: h.address, PORT: BigInt(h.port), HOSTKEY: h.hostKey === null ? '' : h.hostKey.toString('base64'),
    ISSSL: h.isSsl, ISCLIENT: h.isClient, ISPROXIFIED: h.isProxified, ADMINROLE: h.adminRole, ISACTIVE: h.isActive, UPDATEDINFO: BigInt(h.updatedInfo),
  };
}

/** Base64 is decoded; anything else is taken as the raw password text (§11.2). */
function clearKey(value: string): Buffer {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value) ? Buffer.from(value, 'base64') : Buffer.from(value, 'utf8');
}

function apply(ctx: RestListenerContext, h: Host, args: ModelArgs): void {
  h.address = text(args, 'ADDRESS') ?? h.address;
  h.port = int(args, 'PORT') ?? h.port;
  // Only a supplied key is encrypted (defect D9: the original re-encrypts the stored one).
  const key = text(args, 'HOSTKEY');
  if (key !== undefined && key !== '') h.hostKey = Buffer.from(encryptPasswordHex(ctx.services.config.identity.cryptoKey, clearKey(key)), 'ascii');
  h.isSsl = bool(args, 'ISSSL') ?? h.isSsl;
  h.isClient = bool(args, 'ISCLIENT') ?? h.isClient;
  h.isProxified = bool(args, 'ISPROXIFIED') ?? h.isProxified;
  h.adminRole = bool(args, 'ADMINROLE') ?? h.adminRole;
  h.isActive = bool(args, 'ISACTIVE') ?? h.isActive;
  if (h.port < 0) {
    h.isClient = true;
    h.address = NO_ADDRESS;
  }
  h.updatedInfo = UpdatedInfo.TOSUBMIT;
}

async function create(ctx: RestListenerContext, args: ModelArgs): Promise<JsonObject> {
  const hostId = text(args, 'HOSTID');
  const missing = [['HOSTID', hostId], ['ADDRESS', text(args, 'ADDRESS')], ['HOSTKEY', text(args, 'HOSTKEY')]].filter(([, v]) => !v).map(([n]) => n);
  if (missing.length > 0) throw new ModelError(400, `not enough data to create a host: ${missing.join(', ')} required`);
  const store = ctx.services.store.hosts;
  // Create is an upsert; ADMINROLE defaults to true on a new host, as in the original (§11.2).
  const host: Host = (await store.get(hostId!)) ?? {
    hostId: hostId!, address: '', port: 0, isSsl: false, hostKey: null, adminRole: true, isClient: false, isActive: true, isProxified: false, updatedInfo: 0,
  };
  apply(ctx, host, args);
  await store.upsert(host);
  return hostItem(host);
}

export const hostsModel: DataModel = {
  fn: 'DbHostAuth', base: 'hosts', model: 'DbHostAuth', role: Role.HOST,
  columns: {
    HOSTID: SQL.NVARCHAR, ADDRESS: SQL.VARCHAR, PORT: SQL.INTEGER, HOSTKEY: SQL.VARBINARY, ISSSL: SQL.BIT, ISCLIENT: SQL.BIT, ISPROXIFIED: SQL.BIT,
    ADMINROLE: SQL.BIT, ISACTIVE: SQL.BIT, UPDATEDINFO: SQL.INTEGER,
  },
  filters: { HOSTID: 'host id equals', ADDRESS: 'address equals', ISSSL: 'TLS flag (when given)', ISACTIVE: 'active flag (when given)', limit: 'maximum items returned (default 100)' },
  async list(ctx, args) {
    const address = text(args, 'ADDRESS');
    const isSsl = bool(args, 'ISSSL');
    const isActive = bool(args, 'ISACTIVE');
    const hostId = text(args, 'HOSTID');
    // Each flag applies only when given (defect D2: the original always applies both, false by default).
    const rows = await ctx.services.store.hosts.list({
      ...(address ? { address } : {}), ...(isSsl !== undefined ? { isSsl } : {}), ...(isActive !== undefined ? { isActive } : {}),
    });
    return rows.filter((h) => !hostId || h.hostId === hostId).map(hostItem);
  },
  get: async (ctx, id) => {
    const h = await ctx.services.store.hosts.get(id);
    return h === undefined ? undefined : hostItem(h);
  },
  create,
  update: (ctx, id, args) => updateKeyed(ctx.services.store.hosts, id, (h) => apply(ctx, h, args), hostItem),
  remove: (ctx, id) => removeKeyed(ctx.services.store.hosts, id, hostItem),
};
