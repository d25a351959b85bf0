/** `/v2/hostconfig` (rest-v2.md §10.9): this server's business, roles, aliases and version record. */
import { z } from 'zod';
import { Role } from '../../config/index.js';
import type { HostConfig } from '../../model/host-config.js';
import { PRODUCT_NAME, PRODUCT_VERSION } from '../../model/product.js';
import { UpdatedInfo } from '../../model/transfer.js';
import { CURRENT_SCHEMA_VERSION } from '../../store/index.js';
import { formatAliases, formatBusiness, formatRoles, parseAliases, parseBusiness, parseRoles } from '../../config/hostconfig-xml.js';
import { ErrorList, V2BadRequest, V2Code, V2Status } from './errors.js';
import { json, type V2Operation, type V2Request } from './route.js';
import { hostConfigSchema } from './schemas.js';
import { parseBody } from './validate.js';

const ROLE_NAMES = ['NOACCESS', 'READONLY', 'TRANSFER', 'RULE', 'HOST', 'LIMIT', 'SYSTEM', 'LOGCONTROL', 'UNUSED', 'PARTNER', 'CONFIGADMIN', 'FULLADMIN'] as const;

export const hostConfigBody = z.object({
  business: z.array(z.string()),
  roles: z.array(z.object({ hostName: z.string().min(1), roleList: z.array(z.enum(ROLE_NAMES)).min(1) })),
  aliases: z.array(z.object({ hostName: z.string().min(1), aliasList: z.array(z.string()).min(1) })),
  others: z.string().regex(/^<root><version>[^<]+<\/version><\/root>$/),
});

function toJson(hc: HostConfig): Record<string, unknown> {
  return {
    business: parseBusiness(hc.business), roles: parseRoles(hc.roles), aliases: parseAliases(hc.aliases), others: hc.others,
    versionR66: CURRENT_SCHEMA_VERSION, versionBin: `${PRODUCT_NAME}.${PRODUCT_VERSION}`,
  };
}

function apply(req: V2Request, base: HostConfig): HostConfig {
  const errors = new ErrorList();
  const b = parseBody(hostConfigBody, req.body ?? {}, errors);
  errors.throwIfAny();
  const hc = { ...base };
  if (b.business !== undefined) hc.business = formatBusiness(b.business);
  if (b.roles !== undefined) hc.roles = formatRoles(b.roles);
  if (b.aliases !== undefined) hc.aliases = formatAliases(b.aliases);
  if (b.others !== undefined) hc.others = b.others;
  // Applied by the running server at its next scheduler turn (database.md §9.2).
  hc.updatedInfo = UpdatedInfo.TOSUBMIT;
  return hc;
}

async function current(req: V2Request): Promise<HostConfig> {
  const hc = await req.ctx.services.store.hostConfigs.get(req.ctx.services.config.hostId);
  if (hc === undefined) throw new V2Status(404);
  return hc;
}

async function create(req: V2Request) {
  const { store, config } = req.ctx.services;
  if ((await store.hostConfigs.get(config.hostId)) !== undefined) throw V2BadRequest.of(V2Code.AlreadyExisting, config.hostId);
  const hc = apply(req, { hostId: config.hostId, business: formatBusiness([]), roles: formatRoles([]), aliases: formatAliases([]), others: '<root><version></version></root>', updatedInfo: 0 });
  await store.hostConfigs.upsert(hc);
  return json(201, toJson(hc));
}

async function update(req: V2Request) {
  // Answer 404 and stop there when there is no record (defect V15).
  const hc = apply(req, await current(req));
  await req.ctx.services.store.hostConfigs.upsert(hc);
  return json(201, toJson(hc));
}

async function remove(req: V2Request) {
  await current(req);
  await req.ctx.services.store.hostConfigs.delete(req.ctx.services.config.hostId);
  return { status: 204 };
}

const fn = 'DbHostConfiguration' as const;
const path = '/v2/hostconfig';
const ok = (status: number, description: string) => ({ [status]: { description, schema: hostConfigSchema } });
export const hostConfigOperations: V2Operation[] = [
  { method: 'GET', path, fn, role: Role.READONLY, consumes: '*/*', summary: 'Read this server\'s host configuration',
    responses: { ...ok(200, 'the configuration'), 404: { description: 'none' } }, handler: async (r) => json(200, toJson(await current(r))) },
  // Declared form-urlencoded although the body is JSON, as the original (rest-v2.md §2.2).
  { method: 'POST', path, fn, role: Role.CONFIGADMIN, consumes: 'application/x-www-form-urlencoded', summary: 'Initialise the host configuration',
    body: hostConfigBody, responses: ok(201, 'the configuration'), handler: create },
  { method: 'PUT', path, fn, role: Role.CONFIGADMIN, consumes: 'application/json', summary: 'Modify the host configuration', needsBody: true,
    body: hostConfigBody, responses: { ...ok(201, 'the configuration'), 404: { description: 'none' } }, handler: update },
  { method: 'DELETE', path, fn, role: Role.CONFIGADMIN, consumes: '*/*', summary: 'Delete the host configuration',
    responses: { 204: { description: 'deleted' }, 404: { description: 'none' } }, handler: remove },
];
